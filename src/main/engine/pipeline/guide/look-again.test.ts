import { describe, expect, it, vi } from 'vitest'
import { computeAlpha } from '../segment-and-refine'
import type { MaskSource } from '../../segment/mask/types'
import type { DecodedImage } from '../decode/decode'
import type { HintPlane } from './hint'
import { contextTrust, lookCrop, lookTrust, type LookBox } from './look-again'
import type { SegmentInput } from '../../segment/mask/mask'

// The segmenter below stands in for the model (these geometry checks do not need it): on the
// whole frame it misses the subject (all 0), on a smaller crop it thresholds the red channel,
// so what a look-again box must change, and where, is known exactly.

const W = 400
const H = 300

/** A grey frame with a red disc of radius 24 at (300, 90). */
function smallSubject(): DecodedImage {
  const data = Buffer.alloc(W * H * 4)
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const inside = Math.hypot(x + 0.5 - 300, y + 0.5 - 90) < 24
      data.set(inside ? [230, 20, 20, 255] : [120, 120, 120, 255], (y * W + x) * 4)
    }
  return { data, width: W, height: H, channels: 4, hasAlpha: false, warnings: [] }
}

function missingSegmenter(): MaskSource & { segment: ReturnType<typeof vi.fn> } {
  const segment = vi.fn(async (image: SegmentInput) => {
    const out = Buffer.alloc(image.width * image.height)
    if (image.width === W && image.height === H) return out
    for (let i = 0; i < out.length; i++) out[i] = image.data[i * image.channels]! > 200 ? 255 : 0
    return out
  })
  return { segment }
}

const BOX: LookBox = { x: 260, y: 50, width: 80, height: 80 }
const inBox = (x: number, y: number, b: LookBox): boolean => x >= b.x && x < b.x + b.width && y >= b.y && y < b.y + b.height

describe('look-again boxes', () => {
  it("run the model on the box's crop and change the alpha inside the box only", async () => {
    const image = smallSubject()
    const plainSeg = missingSegmenter()
    const plain = await computeAlpha(image, Buffer.alloc(0), { segmenter: plainSeg }, { alpha: 'auto', refine: 'none', look: 'off' })
    const seg = missingSegmenter()
    const looked = await computeAlpha(
      image,
      Buffer.alloc(0),
      { segmenter: seg },
      { alpha: 'auto', refine: 'none', look: 'off' },
      undefined,
      undefined,
      [BOX]
    )
    expect(seg.segment).toHaveBeenCalledTimes(2)
    const crop = lookCrop(BOX, W, H)
    const seen = seg.segment.mock.calls[1]![0] as SegmentInput
    expect([seen.width, seen.height]).toEqual([crop.width, crop.height])
    expect(crop.left).toBeLessThan(BOX.x)
    expect(crop.left + crop.width).toBeGreaterThan(BOX.x + BOX.width)
    // The disc, missed by the first run, is found; outside the box nothing moved.
    expect(plain.alpha[90 * W + 300]).toBe(0)
    expect(looked.alpha[90 * W + 300]).toBe(255)
    let outsideChanged = 0
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) if (!inBox(x, y, BOX) && looked.alpha[y * W + x] !== plain.alpha[y * W + x]) outsideChanged++
    expect(outsideChanged).toBe(0)
    // The uncertainty still judges the first run's mask against the final alpha.
    expect(looked.uncertainty).toBeGreaterThanOrEqual(0)
  })

  it('leave the strokes the last word inside the box', async () => {
    const image = smallSubject()
    const hint: HintPlane = { data: Buffer.alloc(W * H, 128), width: W, height: H }
    for (let y = 80; y < 100; y++) hint.data.fill(0, y * W + 290, y * W + 310)
    const out = await computeAlpha(
      image,
      Buffer.alloc(0),
      { segmenter: missingSegmenter() },
      { alpha: 'auto', refine: 'none', look: 'off' },
      undefined,
      hint,
      [BOX]
    )
    expect(out.alpha[90 * W + 300]).toBe(0)
    expect(out.alpha[90 * W + 280]).toBe(255)
  })

  it("take the crop's answer where it is sure, and keep a sure job's answer where the crop is unsure", () => {
    // A missed subject, or a background part the job kept: the crop is sure, it wins.
    expect(lookTrust(255, 0)).toBe(1)
    expect(lookTrust(200, 3)).toBe(1)
    expect(lookTrust(10, 255)).toBe(1)
    // The crop unsure (grey) over a sure job: the job keeps most of it, never less than the crop's own share.
    const legs = lookTrust(100, 255)
    expect(legs).toBeGreaterThan(0.4)
    expect(legs).toBeLessThan(0.5)
    expect(Math.round(legs * 100 + (1 - legs) * 255)).toBeGreaterThanOrEqual(128)
    expect(lookTrust(128, 255)).toBeLessThan(0.01)
    // Both unsure (a soft edge): the crop's answer.
    expect(lookTrust(120, 128)).toBeGreaterThan(0.99)
  })

  it("trust the crop as far as it agrees with the job on the crop's context (outside the box)", () => {
    // A 10 × 10 image; the crop is all of it, the box its middle 4 × 4.
    const crop = { left: 0, top: 0, width: 10, height: 10 }
    const box = { left: 3, top: 3, width: 4, height: 4 }
    const job = Buffer.alloc(100, 255)
    const inBox = (i: number): boolean => inBoxXY(i % 10, Math.floor(i / 10))
    const inBoxXY = (x: number, y: number): boolean => x >= 3 && x < 7 && y >= 3 && y < 7
    // The same context, whatever the box says: trusted.
    const same = Buffer.from(job.map((v, i) => (inBox(i) ? 0 : v)))
    expect(contextTrust(job, 10, same, crop, box)).toBe(1)
    // The crop took the subject around the box for background: not trusted at all.
    expect(contextTrust(job, 10, Buffer.alloc(100, 0), crop, box)).toBe(0)
    // A little off (mean 0.1 of the range): partly.
    const off = Buffer.from(job.map((v, i) => (inBox(i) ? v : 255 - 26)))
    expect(contextTrust(job, 10, off, crop, box)).toBeGreaterThan(0.6)
    expect(contextTrust(job, 10, off, crop, box)).toBeLessThan(0.7)
    // No context (the box fills the crop): trusted.
    expect(contextTrust(job, 10, Buffer.alloc(100, 0), crop, crop)).toBe(1)
  })

  it('a box over the whole frame is the plain run', async () => {
    const image = smallSubject()
    const seg = missingSegmenter()
    const out = await computeAlpha(
      image,
      Buffer.alloc(0),
      { segmenter: seg },
      { alpha: 'auto', refine: 'none', look: 'off' },
      undefined,
      undefined,
      [{ x: 0, y: 0, width: W, height: H }]
    )
    expect(seg.segment).toHaveBeenCalledTimes(1)
    expect(out.alpha.every((v) => v === 0)).toBe(true)
  })
})
