import { describe, expect, it } from 'vitest'
import { candidateFeatures, components } from '../bench/review-features'
import { mirrored } from '../bench/review-scenes'
import { auc, fitLogistic, flagging, groupedOutOfFold, predict, ranks, spearman } from '../bench/review-stats'

/** A plane from rows of '#' (1) and '.' (0). */
function plane(rows: string[]): { data: Uint8Array; width: number; height: number } {
  const width = rows[0]!.length
  return { data: Uint8Array.from(rows.join('').split(''), (c) => (c === '#' ? 1 : 0)), width, height: rows.length }
}

describe('review benchmark statistics', () => {
  it('ranks ties by their mean rank, and Spearman is 1, −1 or in between accordingly', () => {
    expect(ranks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1])
    expect(spearman([1, 2, 3, 4], [10, 20, 35, 90])).toBeCloseTo(1, 12)
    expect(spearman([1, 2, 3, 4], [9, 7, 3, 1])).toBeCloseTo(-1, 12)
    expect(spearman([1, 2, 3, 4], [1, 3, 2, 4])).toBeCloseTo(0.8, 12)
    expect(spearman([1, 2], [2, 1])).toBeNaN()
  })

  it('AUC is the share of positive–negative pairs ranked right, ties counting half', () => {
    expect(auc([3, 4], [1, 2])).toBe(1)
    expect(auc([1, 2], [3, 4])).toBe(0)
    expect(auc([2, 4], [1, 3])).toBe(0.75)
    expect(auc([2], [2])).toBe(0.5)
    expect(auc([], [1])).toBeNaN()
  })

  it('fits a logistic model that separates a separable set and recovers the sign of each term', () => {
    const x = Array.from({ length: 40 }, (_, i) => [i / 40, ((i * 7) % 40) / 40])
    const y = x.map((r) => (r[0]! > 0.5 ? 1 : 0))
    const m = fitLogistic(x, y, 0.1)
    expect(m.weights[0]).toBeGreaterThan(5)
    expect(Math.abs(m.weights[1]!)).toBeLessThan(Math.abs(m.weights[0]!) / 5)
    expect(predict(m, [0.9, 0.5])).toBeGreaterThan(0.9)
    expect(predict(m, [0.1, 0.5])).toBeLessThan(0.1)
    // Deterministic: the same data, the same weights.
    expect(fitLogistic(x, y, 0.1)).toEqual(m)
  })

  it('scores each group out of fold with a model fitted without it', () => {
    const x = Array.from({ length: 30 }, (_, i) => [i])
    const y = x.map((r) => (r[0]! >= 15 ? 1 : 0))
    const groups = x.map((_, i) => `g${i % 3}`)
    const oof = groupedOutOfFold(x, y, groups, 1)
    const trainedWithoutG0 = fitLogistic(
      x.filter((_, i) => groups[i] !== 'g0'),
      y.filter((_, i) => groups[i] !== 'g0'),
      1
    )
    x.forEach((r, i) => {
      if (groups[i] === 'g0') expect(oof[i]).toBe(predict(trainedWithoutG0, r))
    })
    // Away from the boundary every group is on its side.
    expect(oof.every((p, i) => (i < 10 ? p < 0.5 : i >= 20 ? p > 0.5 : true))).toBe(true)
  })

  it('counts precision and recall of flagging', () => {
    expect(flagging([0.9, 0.8, 0.3, 0.1], [true, false, true, false], 0.5)).toEqual({ flagged: 2, precision: 0.5, recall: 0.5 })
  })
})

describe('review benchmark candidate features', () => {
  const ring = plane(['.......', '.#####.', '.#...#.', '.#.#.#.', '.#...#.', '.#####.', '.......'])

  it('finds a ring with an island inside: two subject regions, one hole around the island', () => {
    const fg = components(ring.data, ring.width, ring.height, 1, true)
    expect(fg.map((c) => c.area).sort((a, b) => a - b)).toEqual([1, 16])
    const bg = components(ring.data, ring.width, ring.height, 0, false)
    expect(bg.map((c) => [c.area, c.border]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
      [8, false],
      [24, true]
    ])
  })

  it('joins diagonal neighbours with 8-connectivity only', () => {
    const diagonal = plane(['#..', '.#.', '..#'])
    expect(components(diagonal.data, 3, 3, 1, true)).toEqual([{ area: 3, border: true }])
    expect(components(diagonal.data, 3, 3, 1, false)).toHaveLength(3)
  })

  it('measures a half-frame subject: cut by the frame on three edges, no islands or holes, the model agreeing', () => {
    const width = 64
    const height = 32
    const data = Buffer.alloc(width * height)
    for (let y = 0; y < height; y++) data.fill(255, y * width, y * width + width / 2)
    const f = candidateFeatures({ data, width, height }, { data, width, height })
    expect(f.foreground).toBeCloseTo(0.5, 2)
    expect(f.frame).toBeCloseTo(0.5, 2) // top and bottom half, the left edge whole: (0.5 + 0.5 + 1) / 4
    expect([f.islands, f.fragments, f.holes, f.disagreement, f.undecided]).toEqual([0, 0, 0, 0, 0])
  })
})

describe('review benchmark scenes', () => {
  it('mirrors a background crop to cover a larger frame at its own scale, folding at each edge', () => {
    // A 2 × 2 crop, one grey per pixel: 10 20 / 30 40.
    const crop = { rgb: Buffer.from([10, 10, 10, 20, 20, 20, 30, 30, 30, 40, 40, 40]), width: 2, height: 2 }
    const out = mirrored(crop, 5, 3)
    const grey = Array.from({ length: 15 }, (_, i) => out[i * 3]!)
    expect(grey).toEqual([10, 20, 20, 10, 10, 30, 40, 40, 30, 30, 30, 40, 40, 30, 30])
    // Every channel of a pixel comes from the same source pixel.
    expect(out.equals(Buffer.from(grey.flatMap((g) => [g, g, g])))).toBe(true)
  })
})
