import { describe, expect, it } from 'vitest'
import { CropMasks, type CropKey } from './crop-masks'

const key = (job: string, x = 10, model = 'medium'): CropKey => ({ job, model, box: { x, y: 20, width: 64, height: 48 } })

describe('CropMasks (the look-again crops kept for the touch-up preview)', () => {
  it('makes a crop once per job, box and model; strokes after it reuse it', async () => {
    const cache = new CropMasks<string>()
    let runs = 0
    const make = async (): Promise<string> => `mask ${++runs}`
    expect(await cache.get(key('job-a'), make)).toBe('mask 1')
    for (let stroke = 0; stroke < 5; stroke++) expect(await cache.get(key('job-a'), make)).toBe('mask 1')
    expect(runs).toBe(1)
    // Another box, another job or another model is another crop.
    expect(await cache.get(key('job-a', 11), make)).toBe('mask 2')
    expect(await cache.get(key('job-b'), make)).toBe('mask 3')
    expect(await cache.get(key('job-a', 10, 'small'), make)).toBe('mask 4')
    expect(runs).toBe(4)
  })

  it('shares one run between previews asked while it is under way', async () => {
    const cache = new CropMasks<number>()
    let release!: (v: number) => void
    let runs = 0
    const make = (): Promise<number> => {
      runs++
      return new Promise((resolve) => (release = resolve))
    }
    const first = cache.get(key('job-a'), make)
    const second = cache.get(key('job-a'), make)
    release(7)
    expect(await Promise.all([first, second])).toEqual([7, 7])
    expect(runs).toBe(1)
  })

  it('keeps the most recently used few, and forgets a failed run', async () => {
    const cache = new CropMasks<string>(2)
    await cache.get(key('a'), async () => 'a')
    await cache.get(key('b'), async () => 'b')
    await cache.get(key('a'), async () => 'a again') // used: b is now the oldest
    await cache.get(key('c'), async () => 'c')
    expect(cache.size).toBe(2)
    expect(cache.has(key('a'))).toBe(true)
    expect(cache.has(key('b'))).toBe(false)
    expect(cache.has(key('c'))).toBe(true)

    await expect(cache.get(key('d'), async () => Promise.reject(new Error('model failed')))).rejects.toThrow('model failed')
    expect(cache.has(key('d'))).toBe(false)
    expect(await cache.get(key('d'), async () => 'd')).toBe('d')
  })
})
