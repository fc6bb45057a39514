import { describe, expect, it } from 'vitest'
import type { MaskPlane } from '../mask/types'
import { found, kept } from './second-look'
import { uncertainty } from '../mask/uncertainty'
import { surest } from './surest'

const W = 200
const H = 150

/** A plane of `fill` with rectangles painted at the given strengths. */
function plane(rects: Array<[x: number, y: number, w: number, h: number, v: number]>, fill = 0): MaskPlane {
  const data = Buffer.alloc(W * H, fill)
  for (const [x, y, w, h, v] of rects) for (let r = y; r < y + h; r++) data.fill(v, r * W + x, r * W + x + w)
  return { data, width: W, height: H }
}

const at = (p: MaskPlane, x: number, y: number): number => p.data[y * W + x]!

describe('surest: the regions of a doubted mask the model is surest of', () => {
  it('keeps a crisp subject and clears a broad half-strength region beside it', () => {
    // The background's structure: a broad band at 60 %, touching the frame's edge; the subject: a crisp block.
    const m = plane([
      [0, 0, 200, 50, 155],
      [120, 90, 30, 30, 250]
    ])
    const s = surest(m)
    expect(at(s, 130, 100)).toBe(250)
    expect(at(s, 20, 20)).toBe(0)
    expect(at(s, 190, 10)).toBe(0)
  })

  it("keeps a subject's half-transparent part joined to its core (a dress below a figure)", () => {
    const m = plane([
      [60, 20, 40, 40, 250],
      [60, 60, 40, 50, 110]
    ])
    const s = surest(m)
    expect(s).toBe(m) // one region: nothing to clear
  })

  it("clears a busy background's faint haze away from the kept subject, and keeps the subject's fringe", () => {
    // Haze at 15 % over the frame, a crisp subject with a 20 % fringe 2 px wide around it.
    const m = plane(
      [
        [98, 58, 44, 44, 50],
        [100, 60, 40, 40, 250]
      ],
      38
    )
    const s = surest(m)
    expect(at(s, 120, 80)).toBe(250)
    expect(at(s, 98, 80)).toBe(50) // the fringe, beside the subject
    expect(at(s, 10, 10)).toBe(0) // the haze, far from it
    expect(at(s, 190, 140)).toBe(0)
  })

  it('keeps two subjects the model is as sure of (a pair side by side)', () => {
    const m = plane([
      [20, 40, 40, 60, 245],
      [130, 40, 40, 60, 240]
    ])
    const s = surest(m)
    expect(at(s, 40, 60)).toBe(245)
    expect(at(s, 150, 60)).toBe(240)
  })

  it("clears a lattice of thin bars that touches the subject (a building's frame), and keeps the bars' ends at its edge", () => {
    // Bars 1 px wide (the opening's square is 3 px here), as sure as the subject, joined to it by a crossbar.
    const bars: Array<[number, number, number, number, number]> = [[0, 100, 120, 1, 230]]
    for (let x = 10; x <= 100; x += 10) bars.push([x, 20, 1, 120, 230])
    const m = plane([...bars, [120, 90, 30, 30, 250]])
    const s = surest(m)
    expect(at(s, 135, 105)).toBe(250)
    expect(at(s, 50, 60)).toBe(0) // a bar far from the subject
    expect(at(s, 60, 100)).toBe(0) // the crossbar, away from it
    expect(at(s, 119, 100)).toBe(230) // the crossbar's end, within the subject's fringe
  })
})

describe('found: the second look replaces a doubted first mask only with a subject it drowned', () => {
  it('takes the surest regions when they keep at most half of what the first kept and the model is surer of them', () => {
    const first = plane([
      [0, 0, 200, 60, 150],
      [120, 90, 30, 30, 250]
    ])
    const candidate = surest(first)
    expect(found(first, candidate)).toBe(candidate)
  })

  it('keeps the first mask when the candidate keeps most of it (a large subject doubted for its soft parts)', () => {
    const first = plane([
      [40, 20, 120, 110, 250],
      [10, 10, 20, 20, 150]
    ])
    const candidate = surest(first)
    expect(candidate).not.toBe(first)
    expect(found(first, candidate)).toBe(first)
  })

  it('weighs the first mask by its strengths: a subject drowned in a background the first saw at under half is found', () => {
    // The first keeps only the subject at ≥ 50 %, but most of its weight is the background at 40 %.
    const first = plane([
      [0, 0, 200, 60, 100],
      [120, 90, 20, 20, 250]
    ])
    const candidate = surest(first)
    expect(at(candidate, 10, 10)).toBe(0)
    expect(at(candidate, 130, 100)).toBe(250)
    expect(found(first, candidate)).toBe(candidate)
  })

  it('keeps the first mask when the candidate keeps nothing', () => {
    const first = plane([[0, 0, 200, 60, 150]])
    expect(found(first, plane([]))).toBe(first)
  })
})

describe('kept: a small subject’s merged mask against its first, like with like', () => {
  it('keeps the zoomed views’ crisp subject although their busy background’s haze raises the merged mask’s score', () => {
    // The first look: the subject found roughly, unsure (a block at 84 %), nothing around it.
    const first = plane([[96, 56, 48, 48, 215]])
    // The merge: the subject crisp, with the haze of the busy background the zoom saw larger (18 %).
    const merged = plane([[100, 60, 40, 40, 250]], 45)
    // As a whole the merged mask reads less sure: compared plainly the worse first mask would stay.
    expect(uncertainty(merged, merged)).toBeGreaterThan(uncertainty(first, first))
    expect(kept(first, merged, 'small')).toBe(merged)
    // For a larger subject asked for, the plain comparison stands.
    expect(kept(first, merged, 'asked')).toBe(first)
  })
})
