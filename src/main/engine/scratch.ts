/**
 * One reusable float32 arena for the refine step's working planes.
 *
 * The guided filter and the foreground estimation need a dozen full planes each (tens of MB).
 * Allocating them per image lets RSS climb until the garbage collector notices the external
 * memory; one arena reused from image to image keeps the footprint flat and known. It is freed
 * after a short idle time, so an engine with nothing to do gives the memory back.
 *
 * Only synchronous code may hold views into it: the callers take their planes, compute, and
 * are done before they next await, so two jobs can never hold the arena at once.
 */

/** How long the arena outlives its last use. */
const IDLE_RELEASE_MS = 15_000

let arena = new Float32Array(0)
let releaseTimer: NodeJS.Timeout | null = null
/** Other reusable buffers to drop when the arena goes (see `onScratchRelease`). */
const releaseHooks: Array<() => void> = []

/** Registers `fn` to drop a module's own reusable buffers together with the arena. */
export function onScratchRelease(fn: () => void): void {
  releaseHooks.push(fn)
}

/**
 * `count` planes of `length` floats each, carved out of the arena (contents undefined).
 * Valid until the next call; never keep them across an `await`.
 */
export function scratchPlanes(count: number, length: number): Float32Array[] {
  const need = count * length
  if (arena.length < need) {
    arena = new Float32Array(0) // let the old one go before the new one is allocated
    arena = new Float32Array(need)
  }
  if (releaseTimer) clearTimeout(releaseTimer)
  releaseTimer = setTimeout(releaseScratch, IDLE_RELEASE_MS)
  releaseTimer.unref()
  const planes: Float32Array[] = []
  for (let i = 0; i < count; i++) planes.push(arena.subarray(i * length, (i + 1) * length))
  return planes
}

/** Drops the arena and the registered buffers now (they are freed at the next garbage collection). */
export function releaseScratch(): void {
  if (releaseTimer) clearTimeout(releaseTimer)
  releaseTimer = null
  arena = new Float32Array(0)
  for (const fn of releaseHooks) fn()
}

/** Floats currently held (for tests and the benchmark). */
export function scratchSize(): number {
  return arena.length
}
