import { afterEach, describe, expect, it, vi } from 'vitest'
import { collectGarbage } from './gc'
import { onScratchRelease, releaseScratch, scratchPlanes, scratchSize } from './scratch'

describe('scratchPlanes', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('carves disjoint planes out of one arena that grows, is reused, and is released when idle', () => {
    vi.useFakeTimers()
    const released = vi.fn()
    onScratchRelease(released)
    const [a, b] = scratchPlanes(2, 10) as [Float32Array, Float32Array]
    expect([a.length, b.length]).toEqual([10, 10])
    a.fill(1)
    b.fill(2)
    expect(a.every((v) => v === 1)).toBe(true) // no overlap
    expect(a.buffer).toBe(b.buffer)
    const size = scratchSize()
    expect(size).toBeGreaterThanOrEqual(20)
    const [c] = scratchPlanes(1, 5) as [Float32Array]
    expect(c.buffer).toBe(a.buffer) // smaller request: same arena
    vi.advanceTimersByTime(14_999)
    expect(scratchSize()).toBe(size)
    vi.advanceTimersByTime(1)
    expect(scratchSize()).toBe(0)
    expect(released).toHaveBeenCalledTimes(1)
  })

  it('releaseScratch drops the arena at once, and the collection that follows frees it', async () => {
    const released = vi.fn()
    onScratchRelease(released)
    // Only a weak reference outlives this: no view into the arena stays in scope.
    const arena = ((): WeakRef<ArrayBufferLike> => new WeakRef(scratchPlanes(1, 1 << 20)[0]!.buffer))()
    expect(scratchSize()).toBeGreaterThanOrEqual(1 << 20)
    releaseScratch()
    expect(scratchSize()).toBe(0)
    expect(released).toHaveBeenCalledTimes(1)
    // A WeakRef's target stays alive until the current job ends: collect after a turn.
    await new Promise((r) => setTimeout(r, 0))
    collectGarbage()
    expect(arena.deref()).toBeUndefined()
  })
})
