import { describe, expect, it } from 'vitest'
import { solidAnalysis, solidMask, TRIGGER_SHARE } from './solid'

const W = 240
const H = 240

/** A mask from a function of the pixel, 0–255. */
function mask(f: (x: number, y: number) => number): Buffer {
  const m = Buffer.alloc(W * H)
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) m[y * W + x] = Math.max(0, Math.min(255, Math.round(f(x, y))))
  return m
}

/** A flat grey photo: nothing shows through anything, so the mask alone decides. */
const FLAT = { data: Buffer.alloc(W * H * 4, 128), width: W, height: H }

/** Of the pixels above 8 %, the share between 20 % and 80 % (the corpus's measure of a half-transparent subject). */
function midShare(alpha: Buffer): number {
  let above = 0
  let mid = 0
  for (const v of alpha) {
    if (v <= 20) continue
    above++
    if (v >= 51 && v <= 204) mid++
  }
  return mid / above
}

describe('solidMask', () => {
  it('makes an opaque subject whose mask is half transparent inside opaque', () => {
    // A disc, opaque in truth; the model is sure only of its middle and says 40 % elsewhere.
    const r = (x: number, y: number): number => Math.hypot(x - 120, y - 120)
    const alpha = mask((x, y) => (r(x, y) < 30 ? 255 : 102 * Math.min(1, Math.max(0, (88 - r(x, y)) / 8))))
    expect(solidAnalysis(alpha, W, H).triggered).toBe(true)
    expect(midShare(alpha)).toBeGreaterThan(0.5)

    const out = solidMask({ data: alpha, width: W, height: H }, FLAT).data
    let inside = 0
    let opaque = 0
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const i = y * W + x
        if (r(x, y) < 72) {
          inside++
          if (out[i]! >= 250) opaque++
        }
        if (r(x, y) > 90) expect(out[i]).toBe(0)
      }
    expect(opaque / inside).toBeGreaterThan(0.99)
    expect(midShare(out)).toBeLessThan(0.12)
    // Its own result has no half-transparent inside left: a second pass changes nothing.
    const again = { data: out, width: W, height: H }
    expect(solidMask(again, FLAT)).toBe(again)
  })

  it('drops a broad half-transparent structure that only touches the subject at a seam (a ghost behind a figure)', () => {
    const figure = (x: number, y: number): boolean => x >= 40 && x < 100 && y >= 30 && y < 220
    const ghost = (x: number, y: number): boolean => x >= 100 && x < 230 && y >= 150 && y < 200
    const alpha = mask((x, y) => (figure(x, y) ? 255 : ghost(x, y) ? 90 : 0))
    const out = solidMask({ data: alpha, width: W, height: H }, FLAT).data
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const i = y * W + x
        if (ghost(x, y) && x >= 110) expect(out[i]).toBe(0)
        if (x >= 45 && x < 95 && y >= 35 && y < 215) expect(out[i]).toBe(255)
      }
  })

  it('keeps a truly semi-transparent subject (smoke, a tinted glass) partial: no confident core, nothing changes', () => {
    const smoke = (x: number, y: number): number => 0.6 * Math.exp(-((x - 120) ** 2 + (y - 110) ** 2) / (2 * 45 ** 2))
    const glass = (x: number, y: number): number => (Math.abs(x - 120) < 50 && y > 40 && y < 220 ? 0.35 : 0)
    for (const shape of [smoke, glass]) {
      const alpha = mask((x, y) => 255 * shape(x, y))
      const plane = { data: alpha, width: W, height: H }
      expect(solidAnalysis(alpha, W, H).triggered).toBe(false)
      expect(solidMask(plane, FLAT)).toBe(plane)
      expect(midShare(alpha)).toBeGreaterThan(0.5)
    }
  })

  it('keeps a veil’s hem partial where it hangs from a confident figure as a narrow band', () => {
    const figure = (x: number, y: number): boolean => x >= 60 && x < 180 && y >= 20 && y < 120
    const hem = (x: number, y: number): boolean => x >= 60 && x < 180 && y >= 120 && y < 125
    const alpha = mask((x, y) => (figure(x, y) ? 255 : hem(x, y) ? 115 : 0))
    expect(solidAnalysis(alpha, W, H).triggered).toBe(false)
    expect(solidMask({ data: alpha, width: W, height: H }, FLAT).data[122 * W + 100]).toBe(115)
  })

  it('leaves an opaque subject with hair-like soft edges exactly as it is (the trigger stays off)', () => {
    // A head: an opaque disc, and a hundred thin strands of 25–70 % alpha fanning out from it,
    // the soft band a well-cut portrait has.
    const alpha = mask((x, y) => {
      const dx = x - 120
      const dy = y - 120
      const r = Math.hypot(dx, dy)
      if (r < 60) return 255
      if (r > 110) return 0
      const angle = Math.atan2(dy, dx)
      const strand = Math.abs(Math.sin(angle * 50))
      return strand > 0.8 ? (0.7 - (0.45 * (r - 60)) / 50) * 255 : r < 64 ? 128 : 0
    })
    const plane = { data: alpha, width: W, height: H }
    const analysis = solidAnalysis(alpha, W, H)
    expect(analysis.triggered).toBe(false)
    expect(analysis.broadShare).toBeLessThan(TRIGGER_SHARE / 2)
    expect(solidMask(plane, FLAT)).toBe(plane)
  })
})
