import { describe, expect, it } from 'vitest'
import { Limiter } from './limit'

/** A call that ends when its `end` is called. */
function held(): { promise: Promise<void>; end: () => void } {
  let end = (): void => undefined
  const promise = new Promise<void>((r) => {
    end = r
  })
  return { promise, end }
}

describe('Limiter', () => {
  it('runs at most max at once, the rest in the order they came', async () => {
    const limiter = new Limiter(2)
    const calls = [held(), held(), held(), held()]
    const started: number[] = []
    const all = calls.map((c, i) =>
      limiter.run(async () => {
        started.push(i)
        await c.promise
      })
    )
    await Promise.resolve()
    expect(started).toEqual([0, 1])
    calls[1]!.end()
    await all[1]
    await new Promise((r) => setTimeout(r, 0))
    expect(started).toEqual([0, 1, 2])
    calls[0]!.end()
    calls[2]!.end()
    calls[3]!.end()
    await Promise.all(all)
    expect(started).toEqual([0, 1, 2, 3])
  })

  it('hands an ending call its place to the next waiting one: a call arriving then waits', async () => {
    const limiter = new Limiter(1)
    let running = 0
    let most = 0
    const work = async (): Promise<void> => {
      most = Math.max(most, ++running)
      await new Promise((r) => setTimeout(r, 0))
      running--
    }
    const first = limiter.run(work)
    const second = limiter.run(work)
    // Arrives in the same turn as the first call ends.
    const late = first.then(() => limiter.run(work))
    await Promise.all([first, second, late])
    expect(most).toBe(1)
  })

  it('gives back what the call gives, and passes its error on while freeing its place', async () => {
    const limiter = new Limiter(1)
    await expect(limiter.run(async () => 7)).resolves.toBe(7)
    await expect(
      limiter.run(async () => {
        throw new Error('no')
      })
    ).rejects.toThrow('no')
    await expect(limiter.run(async () => 'after')).resolves.toBe('after')
  })
})
