import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { computeAlpha } from '../../pipeline/segment-and-refine'
import type { MaskSource } from '../mask/types'
import type { DecodedImage } from '../../pipeline/decode/decode'
import { openDatabase, type Db } from '../../store/db'
import { MaskCache } from '../../store/mask-cache'
import { MODEL_SIZE, type SegmentInput } from '../mask/mask'
import { resizeGrey } from '../mask/resample'
import { doubt, lookReason, MAX_SECOND_LOOK_VIEWS, plan, subjectBox } from './second-look'
import { mirrorRows, runView, tiles } from './views'

// The stand-in models below threshold the red channel, so the right answer at any view is known
// exactly; the first look is made to miss or blur the subject, as the real model does on a busy
// background, by answering the whole frame differently from its crops.

const W = 400
const H = 300

/** A grey frame with a red disc of radius 24 at (300, 90): a subject on ~2 % of it. */
function smallSubject(): DecodedImage {
  const data = Buffer.alloc(W * H * 4)
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const inside = Math.hypot(x + 0.5 - 300, y + 0.5 - 90) < 24
      data.set(inside ? [230, 20, 20, 255] : [120, 120, 120, 255], (y * W + x) * 4)
    }
  return { data, width: W, height: H, channels: 4, hasAlpha: false, warnings: [] }
}

/** The exact mask of an image: 255 where red dominates. */
function redMask(image: SegmentInput): Buffer {
  const out = Buffer.alloc(image.width * image.height)
  for (let i = 0; i < out.length; i++) out[i] = image.data[i * image.channels]! > 200 ? 255 : 0
  return out
}

/** A stand-in model: `whole` answers the full frame; any crop gets its exact red mask at the model's size. */
function standIn(whole: (image: SegmentInput) => Buffer) {
  const source = {
    variant: 'medium' as const,
    segment: vi.fn(async (image: SegmentInput) => redMask(image)),
    segmentAtModelSize: vi.fn(async (image: SegmentInput) => {
      const full = image.width === W && image.height === H
      const mask = full ? whole(image) : resizeGrey(redMask(image), image.width, image.height, MODEL_SIZE, MODEL_SIZE)
      return { mask, inferenceMs: 1 }
    })
  }
  return source satisfies MaskSource
}

/** The first look's coarse answer: the disc's bounding square, unsure (a small subject found roughly). */
function coarse(): Buffer {
  const m = Buffer.alloc(MODEL_SIZE * MODEL_SIZE)
  const sx = MODEL_SIZE / W
  const sy = MODEL_SIZE / H
  for (let y = Math.round(66 * sy); y < Math.round(114 * sy); y++)
    m.fill(200, y * MODEL_SIZE + Math.round(276 * sx), y * MODEL_SIZE + Math.round(324 * sx))
  return m
}

const exact = redMask(smallSubject())
const error = (a: Buffer): number => a.reduce((s, v, i) => s + Math.abs(v - exact[i]!), 0) / a.length
const plane = (data: Buffer) => ({ data, width: MODEL_SIZE, height: MODEL_SIZE })

describe('doubt and plan', () => {
  it('an empty first mask gets the 2×2 tiles; a small subject its box zoomed and mirrored; a large sure one nothing', () => {
    const empty = plane(Buffer.alloc(MODEL_SIZE * MODEL_SIZE))
    expect(doubt(empty)).toBe('empty')
    expect(lookReason(empty, 'auto', W, H)).toBe('empty')
    expect(lookReason(empty, 'off', W, H)).toBeNull()
    // A photo this small is seen enlarged already: no view would show more.
    expect(lookReason(empty, 'always', 200, 150)).toBeNull()
    const four = plan(empty, W, H, 'empty')
    expect(four.map((v) => v.crop)).toEqual(tiles(W, H))
    expect(four.length).toBe(MAX_SECOND_LOOK_VIEWS)
    // The tiles cover the frame, and neighbours overlap.
    expect(four[3]!.crop.left + four[3]!.crop.width).toBe(W)
    expect(four[0]!.crop.width).toBeGreaterThan(W / 2)

    const small = plane(coarse())
    expect(doubt(small)).toBe('small')
    const zoom = plan(small, W, H, 'small')
    expect(zoom.map((v) => v.mirror)).toEqual([false, true])
    expect(zoom[0]!.crop).toEqual(zoom[1]!.crop)
    expect(zoom[0]!.crop.width * zoom[0]!.crop.height).toBeLessThan(W * H * 0.1)

    const half = Buffer.alloc(MODEL_SIZE * MODEL_SIZE)
    for (let y = 0; y < MODEL_SIZE; y++) half.fill(255, y * MODEL_SIZE, y * MODEL_SIZE + MODEL_SIZE / 2)
    expect(doubt(plane(half))).toBeNull()
    expect(subjectBox(plane(half))).toEqual({ left: 0, top: 0, width: MODEL_SIZE / 2, height: MODEL_SIZE })
    // Forced on a large subject: the photo mirrored (its box zoomed would be most of the photo again).
    expect(plan(plane(half), W, H, 'asked')).toEqual([{ crop: { left: 0, top: 0, width: W, height: H }, mirror: true }])
  })

  it('a mirrored view is mirrored back: its mask lies on the photo as an unmirrored view does', async () => {
    const image = smallSubject()
    const source = { segment: vi.fn(async (i: SegmentInput) => redMask(i)) } satisfies MaskSource
    const crop = { left: 230, top: 40, width: 100, height: 100 }
    const straight = await runView(image, { crop, mirror: false }, source)
    const mirrored = await runView(image, { crop, mirror: true }, source)
    expect(mirrored.mask.data.equals(straight.mask.data)).toBe(true)
    // The view saw the crop mirrored (the disc on its other side), not the photo as it is.
    const [plain] = source.segment.mock.calls[0]!
    const [seen] = source.segment.mock.calls[1]!
    expect(seen.data.equals(plain.data)).toBe(false)
    expect(seen.data.equals(mirrorRows(plain.data, crop.width, crop.height, 4, true))).toBe(true)
    expect(image.data.equals(smallSubject().data)).toBe(true) // the photo itself is left as it was
  })
})

describe('the second look in the alpha step', () => {
  it('a small subject found roughly: by default its box is looked at again and the edges follow it; look=off leaves the first look', async () => {
    const image = smallSubject()
    const off = standIn(coarse)
    const first = await computeAlpha(image, image.data, { segmenter: off }, { alpha: 'auto', refine: 'edges', look: 'off' })
    expect(off.segmentAtModelSize).toHaveBeenCalledTimes(1)
    expect(first.secondLook).toBeNull()

    const auto = standIn(coarse)
    const second = await computeAlpha(image, image.data, { segmenter: auto }, { alpha: 'auto', refine: 'edges' })
    expect(auto.segmentAtModelSize).toHaveBeenCalledTimes(3)
    expect(second.secondLook).toEqual({ views: 2, reason: 'small' })
    expect(error(second.alpha)).toBeLessThan(error(first.alpha) / 2)
    // The review score is the delivered mask's: the views made the model surer.
    expect(second.uncertainty).toBeLessThanOrEqual(first.uncertainty)
  })

  it('a subject the first look missed is found in the tiles; refine=detail is look=always', async () => {
    const image = smallSubject()
    const missed = () => Buffer.alloc(MODEL_SIZE * MODEL_SIZE)
    const auto = standIn(missed)
    const found = await computeAlpha(image, image.data, { segmenter: auto }, { alpha: 'auto', refine: 'edges' })
    expect(found.secondLook).toEqual({ views: 4, reason: 'empty' })
    expect(auto.segmentAtModelSize).toHaveBeenCalledTimes(5)
    let inside = 0
    for (let i = 0; i < exact.length; i++) if (exact[i] && found.alpha[i]! >= 128) inside++
    expect(inside / exact.reduce((n, v) => n + (v ? 1 : 0), 0)).toBeGreaterThan(0.95)

    const off = await computeAlpha(image, image.data, { segmenter: standIn(missed) }, { alpha: 'auto', refine: 'edges', look: 'off' })
    expect(off.alpha.every((v) => v < 128)).toBe(true)

    // A large subject the model is sure of: nothing by default, the views when forced.
    const half = () => {
      const m = Buffer.alloc(MODEL_SIZE * MODEL_SIZE)
      for (let y = 0; y < MODEL_SIZE; y++) m.fill(255, y * MODEL_SIZE, y * MODEL_SIZE + MODEL_SIZE / 2)
      return m
    }
    const sure = standIn(half)
    expect((await computeAlpha(image, image.data, { segmenter: sure }, { alpha: 'auto', refine: 'edges' })).secondLook).toBeNull()
    expect(sure.segmentAtModelSize).toHaveBeenCalledTimes(1)
    const detail = await computeAlpha(image, image.data, { segmenter: standIn(half) }, { alpha: 'auto', refine: 'detail' })
    expect(detail.secondLook).toEqual({ views: 1, reason: 'asked' })
  })

  describe('with the mask cache', () => {
    let dir: string
    let db: Db
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'clipdesk-look-'))
      db = openDatabase(join(dir, 'db.sqlite'))
    })
    afterEach(() => {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it('keeps the second look beside the first mask, keyed by the setting: the same photo again runs nothing', async () => {
      const maskCache = new MaskCache(db)
      const image = smallSubject()
      const source = standIn(coarse)
      const deps = { segmenter: source, maskCache }
      const a = await computeAlpha(image, image.data, deps, { alpha: 'auto', refine: 'edges' })
      expect(source.segmentAtModelSize).toHaveBeenCalledTimes(3)
      const b = await computeAlpha(image, image.data, deps, { alpha: 'auto', refine: 'none' })
      expect(source.segmentAtModelSize).toHaveBeenCalledTimes(3)
      expect([a.source, b.source]).toEqual(['model', 'cache'])
      expect(b.secondLook).toEqual({ views: 2, reason: 'small' })
      // Off: the first mask alone, from the cache; always: its own entry.
      const c = await computeAlpha(image, image.data, deps, { alpha: 'auto', refine: 'edges', look: 'off' })
      expect(c.secondLook).toBeNull()
      expect(error(c.alpha)).toBeGreaterThan(error(a.alpha))
      await computeAlpha(image, image.data, deps, { alpha: 'auto', refine: 'edges', look: 'always' })
      expect(source.segmentAtModelSize).toHaveBeenCalledTimes(5)
      expect(maskCache.stats().entries).toBe(3)
    })
  })
})
