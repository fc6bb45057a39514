/**
 * The one concurrency primitive: at most `max` calls of `run` at once, the rest waiting their
 * turn in the order they came. A call that ends hands its place straight to the next waiting
 * one, so a call arriving just then cannot slip in beside it. `inLanes` (`lanes.ts`) runs a list
 * through it; a watched folder's intake limits the files it reads at once with it. The engine's
 * scheduler keeps its own turns (keys taking turns, `engine/queue/turns.ts`). No Node, no DOM.
 */
export class Limiter {
  private active = 0
  private readonly waiting: (() => void)[] = []
  private readonly max: number

  constructor(max: number) {
    this.max = Math.max(1, Math.floor(max))
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active < this.max) this.active++
    else await new Promise<void>((resolve) => this.waiting.push(resolve))
    try {
      return await fn()
    } finally {
      const next = this.waiting.shift()
      if (next) next()
      else this.active--
    }
  }
}
