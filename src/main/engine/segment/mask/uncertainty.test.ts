import { describe, expect, it } from 'vitest'
import { MODEL_SIZE } from './mask'
import { LIKELY_WRONG } from '../../../../shared/review'
import type { MaskPlane } from './types'
import { GRID, toGrid, TO_CHECK, uncertainty, uncertaintyFeatures, uncertaintyScore } from './uncertainty'

/** A plane of width × height whose value at (u, v) ∈ [0, 1]² is f(u, v) ∈ [0, 1]. */
function plane(width: number, height: number, f: (u: number, v: number) => number): MaskPlane {
  const data = Buffer.alloc(width * height)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      data[y * width + x] = Math.round(255 * Math.min(1, Math.max(0, f((x + 0.5) / width, (y + 0.5) / height))))
  return { data, width, height }
}

/** The model's mask and a final alpha of a photo of 1200 × 800, drawn by the same f. */
function cutout(f: (u: number, v: number) => number): { model: MaskPlane; alpha: MaskPlane } {
  return { model: plane(MODEL_SIZE, MODEL_SIZE, f), alpha: plane(1200, 800, f) }
}

/** A disc of radius r (in frame units) at (cx, cy) with an edge ramp `soft` wide. */
const disc =
  (r: number, cx = 0.5, cy = 0.5, soft = 0.002) =>
  (u: number, v: number): number =>
    0.5 + (r - Math.hypot(u - cx, v - cy)) / soft

/** Deterministic value in [0, 1) for an integer cell. */
function hash(x: number, y: number, seed = 1): number {
  let h = (x * 374761393 + y * 668265263 + seed * 982451653) | 0
  h = Math.imul(h ^ (h >>> 13), 1274126177)
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296
}

const CRISP = cutout(disc(0.3))
/** A subject the model is unsure of: probabilities around 50–75 % inside and a wide soft skirt. */
const MUSHY = cutout((u, v) => {
  const d = Math.hypot(u - 0.5, v - 0.5)
  return d < 0.25 ? 0.55 + 0.2 * hash(Math.floor(u * 40), Math.floor(v * 40)) : 0.55 - (d - 0.25) * 2
})
/** Blobs scattered over the frame: a third of 1/48-frame cells, each a disc. */
const SPECKLED = cutout((u, v) => {
  const cx = Math.floor(u * 48)
  const cy = Math.floor(v * 48)
  if (hash(cx, cy) > 0.33) return 0
  return disc(0.35 / 48, (cx + 0.5) / 48, (cy + 0.5) / 48)(u, v)
})
const EMPTY = cutout(() => 0)

describe('uncertainty', () => {
  it('scores a crisp single subject below "to check"', () => {
    const f = uncertaintyFeatures(CRISP.model, CRISP.alpha)
    expect(f.foreground).toBeCloseTo(Math.PI * 0.09, 2)
    expect(f.roughness).toBeGreaterThan(0.95)
    expect(f.roughness).toBeLessThan(1.05)
    expect(f.entropy).toBeLessThan(0.05)
    expect(uncertainty(CRISP.model, CRISP.alpha)).toBeLessThan(TO_CHECK)
  })

  it.each([
    ['a mushy mask', MUSHY],
    ['a speckled mask', SPECKLED],
    ['an empty mask', EMPTY]
  ])('scores %s at or above "to check", and above the crisp one', (_, c) => {
    const score = uncertainty(c.model, c.alpha)
    expect(score).toBeGreaterThanOrEqual(TO_CHECK)
    expect(score).toBeGreaterThan(uncertainty(CRISP.model, CRISP.alpha))
  })

  it('sees what makes each case hard in its features', () => {
    expect(uncertaintyFeatures(MUSHY.model, MUSHY.alpha).entropy).toBeGreaterThan(0.8)
    expect(uncertaintyFeatures(SPECKLED.model, SPECKLED.alpha).roughness).toBeGreaterThan(10)
    // Speckles are no pieces of their own (each under a tenth of the kept area): as ragged by pieces.
    expect(uncertaintyFeatures(SPECKLED.model, SPECKLED.alpha).pieceRoughness).toBeGreaterThan(10)
    expect(uncertaintyFeatures(EMPTY.model, EMPTY.alpha)).toEqual({ foreground: 0, entropy: 0, roughness: 0, pieceRoughness: 0 })
  })

  it('reads two clean subjects side by side as two clean pieces, not as one ragged region', () => {
    const pair = cutout((u, v) => Math.max(disc(0.15, 0.28)(u, v), disc(0.15, 0.72)(u, v)))
    const one = uncertaintyFeatures(CRISP.model, CRISP.alpha)
    const two = uncertaintyFeatures(pair.model, pair.alpha)
    // One outline over one disc of the whole area: two discs read √2 times as long.
    expect(two.roughness).toBeGreaterThan(1.3)
    expect(two.pieceRoughness).toBeGreaterThan(0.95)
    expect(two.pieceRoughness).toBeLessThan(1.05)
    expect(one.pieceRoughness).toBeCloseTo(one.roughness, 6)
    expect(uncertainty(pair.model, pair.alpha)).toBeLessThan(TO_CHECK)
  })

  it('puts a cutout that keeps nothing exactly at "to check", below one that looks wrong', () => {
    expect(uncertainty(EMPTY.model, EMPTY.alpha)).toBe(TO_CHECK)
    expect(uncertainty(MUSHY.model, MUSHY.alpha)).toBeGreaterThan(TO_CHECK)
  })

  it('scores a tiny subject higher than a large one with the same soft edge (the unsure edge is most of it), a very small one "Worth a look" at most', () => {
    // A soft edge 4 model pixels wide, as the model draws it, around 0.1 %, 0.2 % and 28 % of the frame.
    const large = cutout(disc(0.3, 0.5, 0.5, 0.004))
    const small = cutout(disc(0.025, 0.7, 0.3, 0.004))
    const tiny = cutout(disc(0.018, 0.7, 0.3, 0.004))
    const t = uncertaintyFeatures(tiny.model, tiny.alpha)
    expect(t.foreground).toBeLessThan(0.002)
    expect(t.entropy).toBeGreaterThan(10 * uncertaintyFeatures(large.model, large.alpha).entropy)
    expect(uncertainty(tiny.model, tiny.alpha)).toBeGreaterThan(5 * uncertainty(large.model, large.alpha))
    // Size alone never says "Likely wrong"; from 0.2 % of the frame up a clean subject has no level
    // (docs/review.md, "Formula": on 0.1 % the edge alone reaches "Worth a look").
    expect(uncertainty(tiny.model, tiny.alpha)).toBeLessThan(LIKELY_WRONG)
    expect(uncertainty(small.model, small.alpha)).toBeLessThan(TO_CHECK)
    expect(uncertainty(large.model, large.alpha)).toBeLessThan(TO_CHECK)
  })

  it('is a deterministic number in [0, 1] for any masks, of any sizes', () => {
    for (let seed = 1; seed <= 6; seed++) {
      const noise = (u: number, v: number): number => hash(Math.floor(u * 7 * seed), Math.floor(v * 5 * seed), seed)
      const model = plane(MODEL_SIZE, MODEL_SIZE, noise)
      const alpha = plane(97 * seed, 61 * seed, noise)
      const score = uncertainty(model, alpha)
      expect(score).toBeGreaterThanOrEqual(0)
      expect(score).toBeLessThanOrEqual(1)
      expect(uncertainty(model, alpha)).toBe(score)
    }
    expect(uncertaintyScore(uncertaintyFeatures(CRISP.model, CRISP.alpha))).toBe(uncertainty(CRISP.model, CRISP.alpha))
  })

  it('samples any plane onto the grid by nearest pixel, and refuses a plane shorter than its size', () => {
    const two = { data: Buffer.from([10, 200]), width: 2, height: 1 }
    const grid = toGrid(two)
    expect(grid.length).toBe(GRID * GRID)
    expect([grid[0], grid[GRID / 2 - 1], grid[GRID / 2], grid[GRID * GRID - 1]]).toEqual([10, 10, 200, 200])
    expect(() => toGrid({ data: Buffer.alloc(3), width: 2, height: 2 })).toThrow(RangeError)
  })
})
