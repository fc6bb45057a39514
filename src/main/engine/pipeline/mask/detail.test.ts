import { describe, expect, it, vi } from 'vitest'
import { computeAlpha, type MaskSource } from '../alpha'
import type { DecodedImage } from '../decode/decode'
import { detailPass } from './detail'
import { MODEL_SIZE, type SegmentInput } from './mask'

// The segment functions below stand in for the model (which these geometry checks do not
// need): they threshold the red channel, so the right answer at any crop is known exactly.

/** A 400×300 grey frame with a red disc of radius 24 at (300, 90): a subject on ~2 % of it. */
function smallSubject(): DecodedImage {
  const width = 400
  const height = 300
  const data = Buffer.alloc(width * height * 4)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4
      const inside = Math.hypot(x + 0.5 - 300, y + 0.5 - 90) < 24
      data.set(inside ? [230, 20, 20, 255] : [120, 120, 120, 255], o)
    }
  return { data, width, height, channels: 4, hasAlpha: false, warnings: [] }
}

/** The exact mask of an image: 255 where red dominates. */
function redMask(image: SegmentInput): Buffer {
  const out = Buffer.alloc(image.width * image.height)
  for (let i = 0; i < out.length; i++) out[i] = image.data[i * image.channels]! > 200 ? 255 : 0
  return out
}

/** A coarse first mask at the model's size: the disc's bounding square, soft. */
function coarseModelMask(image: DecodedImage): Buffer {
  const m = Buffer.alloc(MODEL_SIZE * MODEL_SIZE)
  const sx = MODEL_SIZE / image.width
  const sy = MODEL_SIZE / image.height
  for (let y = Math.round(66 * sy); y < Math.round(114 * sy); y++)
    for (let x = Math.round(276 * sx); x < Math.round(324 * sx); x++) m[y * MODEL_SIZE + x] = 200
  return m
}

describe('detailPass', () => {
  it('runs the model on the small subject box plus margin and takes its mask inside the crop', async () => {
    const image = smallSubject()
    const segment = vi.fn(async (crop: SegmentInput) => redMask(crop))
    const out = await detailPass(image, { data: coarseModelMask(image), width: MODEL_SIZE, height: MODEL_SIZE }, segment)
    expect(out).not.toBeNull()
    const { crop, mask } = out!
    expect(segment).toHaveBeenCalledTimes(1)
    const input = segment.mock.calls[0]![0]
    expect([input.width, input.height]).toEqual([crop.width, crop.height])
    // The crop holds the box (276–324 × 66–114) with a margin, squared, and stays in the frame.
    expect(crop.left).toBeLessThan(276)
    expect(crop.top).toBeLessThan(66)
    expect(crop.left + crop.width).toBeGreaterThan(324)
    expect(crop.top + crop.height).toBeGreaterThan(114)
    expect(crop.width).toBe(crop.height)
    expect(crop.width * crop.height).toBeLessThan(image.width * image.height)
    expect([mask.width, mask.height]).toEqual([400, 300])
    // Inside the crop (away from the blend at its edges) the merged mask is the exact disc.
    const exact = redMask(image)
    let wrong = 0
    for (let y = crop.top + 8; y < crop.top + crop.height - 8; y++)
      for (let x = crop.left + 8; x < crop.left + crop.width - 8; x++) if (mask.data[y * 400 + x] !== exact[y * 400 + x]) wrong++
    expect(wrong).toBe(0)
    // Far outside the crop the first mask stays (0 there).
    expect(mask.data[10 * 400 + 10]).toBe(0)
  })

  it('inside the crop, the more certain of the two masks wins per pixel', async () => {
    const image = smallSubject()
    // The first mask: the disc's square certain (255) at the model's size.
    const first = Buffer.alloc(MODEL_SIZE * MODEL_SIZE)
    const sx = MODEL_SIZE / image.width
    const sy = MODEL_SIZE / image.height
    for (let y = Math.round(66 * sy); y < Math.round(114 * sy); y++)
      first.fill(255, y * MODEL_SIZE + Math.round(276 * sx), y * MODEL_SIZE + Math.round(324 * sx))
    // The crop's mask: unsure (150) on the disc, certain 0 elsewhere.
    const segment = vi.fn(async (crop: SegmentInput) => Buffer.from(redMask(crop).map((v) => (v ? 150 : 0))))
    const { mask, crop } = (await detailPass(image, { data: first, width: MODEL_SIZE, height: MODEL_SIZE }, segment))!
    const at = (x: number, y: number): number => mask.data[y * image.width + x]!
    expect(at(300, 90)).toBe(255) // the disc's centre: the first mask's certain 255 beats 150
    expect(at(278, 68)).toBe(0) // a corner of the square, outside the disc: the crop's certain 0 wins (a tie with 255 goes to the crop)
    expect(at(crop.left + crop.width - 10, crop.top + 10)).toBe(0)
  })

  it('leaves a subject that fills much of the frame alone', async () => {
    const image = smallSubject()
    const big = Buffer.alloc(MODEL_SIZE * MODEL_SIZE)
    big.fill(255, 0, (MODEL_SIZE * MODEL_SIZE) / 2) // the top half of the frame
    const segment = vi.fn(async (crop: SegmentInput) => redMask(crop))
    expect(await detailPass(image, { data: big, width: MODEL_SIZE, height: MODEL_SIZE }, segment)).toBeNull()
    expect(
      await detailPass(image, { data: Buffer.alloc(MODEL_SIZE * MODEL_SIZE), width: MODEL_SIZE, height: MODEL_SIZE }, segment)
    ).toBeNull()
    expect(segment).not.toHaveBeenCalled()
  })

  it('refine=detail runs the second look and refines edges from it; refine=edges does not', async () => {
    const image = smallSubject()
    const source = {
      variant: 'medium' as const,
      segment: vi.fn(async (crop: SegmentInput) => redMask(crop)),
      segmentAtModelSize: vi.fn(async () => ({ mask: coarseModelMask(image), inferenceMs: 1 }))
    } satisfies MaskSource
    const edges = await computeAlpha(image, image.data, { segmenter: source }, { alpha: 'auto', refine: 'edges' })
    expect(source.segment).not.toHaveBeenCalled()
    const detail = await computeAlpha(image, image.data, { segmenter: source }, { alpha: 'auto', refine: 'detail' })
    expect(source.segment).toHaveBeenCalledTimes(1)
    const exact = redMask(image)
    const error = (a: Buffer): number => a.reduce((s, v, i) => s + Math.abs(v - exact[i]!), 0) / a.length
    expect(error(detail.alpha)).toBeLessThan(error(edges.alpha) / 4)
  })
})
