import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { refineEdges, refineReach } from '../../pipeline/refine/refine'
import { fuzzyComposite, SKY } from '../../../../../test/fixtures/refine-fixtures'
import { cellsUnder, crop, overlap, paste, widen } from './region'

describe('widen', () => {
  it('adds the margin, snaps to the alignment and stops at the image edges', () => {
    // Cells of 2 px: cells 10–19 are pixels 20–39; ±5 px → 15–44 → aligned to 4: 12–48.
    expect(widen({ x: 10, y: 0, width: 10, height: 3 }, 2, 5, 4, 100, 50)).toEqual({ x: 12, y: 0, width: 36, height: 12 })
    // Past the far edges: clamped to the image, which may end off the alignment.
    expect(widen({ x: 40, y: 20, width: 10, height: 5 }, 2, 5, 4, 99, 49)).toEqual({ x: 72, y: 32, width: 27, height: 17 })
  })
})

describe('cellsUnder and overlap', () => {
  it('gives the grid cells a pixel box touches, and where two boxes meet', () => {
    // Cells of 4 × 2 px: pixels 5–12 × 3–4 touch cell columns 1–3 and rows 1–2.
    expect(cellsUnder({ x: 5, y: 3, width: 8, height: 2 }, 4, 2)).toEqual({ x: 1, y: 1, width: 3, height: 2 })
    expect(overlap({ x: 0, y: 0, width: 10, height: 10 }, { x: 5, y: 8, width: 10, height: 10 })).toEqual({
      x: 5,
      y: 8,
      width: 5,
      height: 2
    })
    expect(overlap({ x: 0, y: 0, width: 5, height: 5 }, { x: 5, y: 0, width: 5, height: 5 })).toBeNull()
  })
})

describe('crop and paste', () => {
  it('round-trip the rows of a region', () => {
    const w = 5
    const src = Uint8Array.from({ length: w * 4 * 2 }, (_, i) => i)
    const r = { x: 1, y: 1, width: 3, height: 2 }
    const part = crop(src, w, 2, r)
    expect([...part]).toEqual([12, 13, 14, 15, 16, 17, 22, 23, 24, 25, 26, 27])
    const dst = new Uint8Array(src.length)
    paste(dst, w, 2, r, part)
    expect([...dst.subarray(12, 18)]).toEqual([12, 13, 14, 15, 16, 17])
    expect(dst[10]).toBe(0)
  })
})

/** A 300×240 fuzzy subject near a corner of a 1600×1200 sky, and a model-like mask of it. */
async function smallSubject(maskSize: [number, number]) {
  const W = 1600
  const H = 1200
  const small = fuzzyComposite(300, 240, SKY)
  const image = Buffer.alloc(W * H * 4)
  const alpha = Buffer.alloc(W * H)
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const [r, g, b] = SKY(x, y)
      image.set([r, g, b, 255], (y * W + x) * 4)
    }
  const at = { x: 1150, y: 820, width: 300, height: 240 }
  paste(image, W, 4, at, small.image)
  paste(alpha, W, 1, at, small.alpha)
  const [mw, mh] = maskSize
  const mask = await sharp(alpha, { raw: { width: W, height: H, channels: 1 } })
    .resize(mw, mh, { fit: 'fill' })
    .blur(1.2)
    .extractChannel(0)
    .raw()
    .toBuffer()
  return { W, H, input: { data: image, width: W, height: H }, plane: { data: mask, width: mw, height: mh } }
}

describe('refineEdges on a small subject', () => {
  it('works on the region around the soft band only, and gives what the whole photo gives', async () => {
    // 1.9 MP: both grids coarser than the photo, so the region must fall on their cell boundaries.
    const { W, H, input, plane } = await smallSubject([1024, 1024])
    const cropped = await refineEdges(input, plane)
    const whole = await refineEdges(input, plane, { wholePhoto: true })
    expect(cropped.region).not.toBeNull()
    const { width: rw, height: rh } = cropped.region!
    expect(rw * rh).toBeLessThan(0.15 * W * H)
    expect(whole.region).toEqual({ x: 0, y: 0, width: W, height: H })
    expect(cropped.bandPixels).toBe(whole.bandPixels)

    // The same up to float rounding in the running sums, which start at the region's edge.
    let differ = 0
    let worst = 0
    for (let i = 0; i < W * H; i++) {
      const d = Math.abs(cropped.alpha[i]! - whole.alpha[i]!)
      if (d) differ++
      worst = Math.max(worst, d)
      for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(cropped.foreground[i * 4 + c]! - whole.foreground[i * 4 + c]!))
    }
    expect(worst).toBeLessThanOrEqual(1)
    expect(differ).toBeLessThan(W * H * 1e-4)
    // Outside the region: the model's certain mask, and no colour where it is transparent.
    expect(cropped.alpha[0]).toBe(0)
    expect([...cropped.foreground.subarray(0, 4)]).toEqual([0, 0, 0, 255])
  })

  it('leaves a full-size mask it is given as it was (the alpha outside the region is a new buffer)', async () => {
    const { W, H, input, plane } = await smallSubject([1600, 1200])
    const before = Buffer.from(plane.data)
    const refined = await refineEdges(input, plane)
    expect(refined.region!.width * refined.region!.height).toBeLessThan(0.15 * W * H)
    expect(plane.data.equals(before)).toBe(true)
    expect(refined.alpha).not.toBe(plane.data)
    // Snapped outside the region: the mask's 0–2 / 253–255 are exactly 0 / 255 in the alpha.
    let soft = 0
    for (let i = 0; i < W * H; i++) if (refined.alpha[i]! > 0 && refined.alpha[i]! < 255) soft++
    expect(soft).toBeGreaterThan(0)
    expect(refined.alpha[W * H - 1]).toBe(0)
  })

  it('with `within`: works near those pixels only, and gives them what the whole photo gives', async () => {
    const { W, H, input, plane } = await smallSubject([1024, 1024])
    const whole = await refineEdges(input, plane, { wholePhoto: true })
    // A window across the subject's left edge: where the whole photo's alpha is soft.
    let left = W
    let row = 0
    for (let i = 0; i < whole.alpha.length; i++)
      if (whole.alpha[i]! > 0 && whole.alpha[i]! < 255 && i % W < left) [left, row] = [i % W, Math.floor(i / W)]
    const within = { x: left - 30, y: row - 45, width: 120, height: 90 }
    const near = await refineEdges(input, plane, { within })
    // No farther from it than the soft band that can reach it, and that band's own reach (and a cell).
    const reach = 2 * refineReach(W, H) + 12
    expect(near.region!.x).toBeGreaterThanOrEqual(within.x - reach)
    expect(near.region!.y).toBeGreaterThanOrEqual(within.y - reach)
    expect(near.region!.x + near.region!.width).toBeLessThanOrEqual(within.x + within.width + reach)
    expect(near.region!.y + near.region!.height).toBeLessThanOrEqual(within.y + within.height + reach)
    let worst = 0
    let soft = 0
    for (let y = within.y; y < within.y + within.height; y++)
      for (let x = within.x; x < within.x + within.width; x++) {
        const i = y * W + x
        worst = Math.max(worst, Math.abs(near.alpha[i]! - whole.alpha[i]!))
        for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(near.foreground[i * 4 + c]! - whole.foreground[i * 4 + c]!))
        if (whole.alpha[i]! > 0 && whole.alpha[i]! < 255) soft++
      }
    expect(soft).toBeGreaterThan(100) // the window holds refined edge, not only certain mask
    expect(worst).toBeLessThanOrEqual(1)

    // Far from the subject: no soft band reaches it, and its pixels are the certain mask, snapped.
    const far = { x: 100, y: 100, width: 50, height: 40 }
    const away = await refineEdges(input, plane, { within: far })
    expect(away.region!.width * away.region!.height).toBeLessThanOrEqual((far.width + reach) * (far.height + reach))
    for (let y = far.y; y < far.y + far.height; y++)
      for (let x = far.x; x < far.x + far.width; x++) expect(away.alpha[y * W + x]).toBe(whole.alpha[y * W + x])
  })
})
