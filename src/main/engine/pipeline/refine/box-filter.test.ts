import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { boxMean } from './box-filter'

/** The definition: mean over the clamped window, by brute force in float64. */
function bruteForce(src: Float32Array, width: number, height: number, r: number): Float64Array {
  const out = new Float64Array(width * height)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      let sum = 0
      let count = 0
      for (let v = Math.max(0, y - r); v <= Math.min(height - 1, y + r); v++)
        for (let u = Math.max(0, x - r); u <= Math.min(width - 1, x + r); u++) {
          sum += src[v * width + u]!
          count++
        }
      out[y * width + x] = sum / count
    }
  return out
}

describe('boxMean', () => {
  it('equals the clamped-window mean for any size and radius (also radius past the image)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 24 }),
        fc.integer({ min: 1, max: 24 }),
        fc.integer({ min: 0, max: 30 }),
        fc.integer(),
        (width, height, r, seed) => {
          const src = new Float32Array(width * height)
          let s = seed | 0
          for (let i = 0; i < src.length; i++) {
            s = (s * 1103515245 + 12345) | 0
            src[i] = ((s >>> 8) & 0xffff) / 65535
          }
          const out = boxMean(src, width, height, r, new Float32Array(src.length), new Float32Array(src.length))
          const want = bruteForce(src, width, height, r)
          for (let i = 0; i < src.length; i++) expect(Math.abs(out[i]! - want[i]!)).toBeLessThan(1e-5)
        }
      ),
      { numRuns: 300 }
    )
  })

  it('may write over its input', () => {
    const src = Float32Array.from([1, 2, 3, 4, 5, 6])
    const want = bruteForce(src, 3, 2, 1)
    boxMean(src, 3, 2, 1, new Float32Array(6), src)
    expect([...src].map((v) => +v.toFixed(5))).toEqual([...want].map((v) => +v.toFixed(5)))
  })

  it('keeps a constant image constant', () => {
    const src = new Float32Array(50 * 40).fill(0.3)
    const out = boxMean(src, 50, 40, 7, new Float32Array(src.length), new Float32Array(src.length))
    for (const v of out) expect(v).toBeCloseTo(0.3, 6)
  })

  it('refuses a bad radius or short arrays', () => {
    const a = new Float32Array(4)
    expect(() => boxMean(a, 2, 2, -1, new Float32Array(4), a)).toThrow('boxMean: radius must be a non-negative integer, got -1')
    expect(() => boxMean(a, 2, 2, 1.5, new Float32Array(4), a)).toThrow('boxMean: radius must be a non-negative integer, got 1.5')
    expect(() => boxMean(a, 3, 2, 1, new Float32Array(6), new Float32Array(6))).toThrow('boxMean: array shorter than width × height')
  })
})
