import { describe, expect, it } from 'vitest'
import { inLanes } from './lanes'

describe('inLanes', () => {
  it('runs every item, never more than the lanes at once, starting them in order', async () => {
    const started: number[] = []
    let running = 0
    let most = 0
    await inLanes([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      started.push(n)
      most = Math.max(most, ++running)
      await new Promise((r) => setTimeout(r, 8 - n))
      running--
    })
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7])
    expect(most).toBe(3)
  })
  it('takes no item once stopped, and says how many were taken', async () => {
    const done: number[] = []
    let taken = 0
    await inLanes(
      [1, 2, 3, 4, 5],
      2,
      async (n) => {
        done.push(n)
      },
      { stop: () => done.length >= 3, taken: (n) => (taken = n) }
    )
    expect(done).toEqual([1, 2, 3])
    expect(taken).toBe(3)
  })
  it('runs nothing for no items', async () => {
    let calls = 0
    await inLanes([], 4, async () => {
      calls++
    })
    expect(calls).toBe(0)
  })
})
