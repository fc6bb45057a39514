import sharp from 'sharp'
import { describe, expect, it, vi } from 'vitest'
import { JobFailure } from '../../errors'
import { applyHint, computeAlpha, refined } from '../segment-and-refine'
import type { MaskSource } from '../../segment/mask/types'
import type { DecodedImage } from '../decode/decode'
import {
  changedStrokes,
  constrainMask,
  hasStrokes,
  hintBand,
  HINT_KEEP,
  HINT_REMOVE,
  HINT_SOFT_KEEP,
  HINT_SOFT_REMOVE,
  mergeHinted,
  rimAlpha,
  strokeBand,
  type HintPlane
} from './hint'
import { decodeHint } from './hint-decode'
import { grown } from '../../segment/mask/region'
import { MODEL_SIZE } from '../../segment/mask/mask'
import { fuzzyComposite, SKY } from '../../../../../test/fixtures/refine-fixtures'

/** A grey hint of `width` × `height` with rectangles set to `value` ([x, y, w, h]). */
function hintOf(width: number, height: number, rects: Array<[number, number, number, number, number]>): HintPlane {
  const data = Buffer.alloc(width * height, 128)
  for (const [x0, y0, w, h, value] of rects) for (let y = y0; y < y0 + h; y++) data.fill(value, y * width + x0, y * width + x0 + w)
  return { data, width, height }
}

describe('strokeBand', () => {
  it('marks the pixels within the band of a stroke (a square around it), and only those', () => {
    const hint = hintOf(20, 10, [[5, 4, 1, 1, 255]])
    const near = strokeBand(hint, 2)
    for (let y = 0; y < 10; y++)
      for (let x = 0; x < 20; x++) expect(near[y * 20 + x]).toBe(Math.abs(x - 5) <= 2 && Math.abs(y - 4) <= 2 ? 1 : 0)
  })

  it('counts keep and remove and their rims as strokes, and mid grey (JPEG noise included) as none', () => {
    const grey = hintOf(8, 8, [
      [0, 0, 8, 4, HINT_SOFT_KEEP - 1],
      [0, 4, 8, 4, HINT_SOFT_REMOVE + 1]
    ])
    expect(hasStrokes(grey)).toBe(false)
    expect([...strokeBand(grey, 3)].every((v) => v === 0)).toBe(true)
    expect(hasStrokes(hintOf(8, 8, [[7, 7, 1, 1, HINT_REMOVE]]))).toBe(true)
    expect(hasStrokes(hintOf(8, 8, [[7, 7, 1, 1, HINT_SOFT_REMOVE]]))).toBe(true)
    expect(hasStrokes(hintOf(8, 8, [[7, 7, 1, 1, HINT_SOFT_KEEP]]))).toBe(true)
  })
})

describe('rimAlpha', () => {
  it("takes a remove rim's alpha down and lifts a keep rim's, in proportion, and leaves mid grey's", () => {
    for (const a of [0, 60, 128, 255]) {
      expect(rimAlpha(HINT_REMOVE, a)).toBe(0)
      expect(rimAlpha(0, a)).toBe(0)
      expect(rimAlpha(HINT_SOFT_REMOVE, a)).toBe(a)
      expect(rimAlpha(128, a)).toBe(a)
      expect(rimAlpha(HINT_SOFT_KEEP, a)).toBe(a)
      expect(rimAlpha(HINT_KEEP, a)).toBe(255)
    }
    expect(rimAlpha((HINT_REMOVE + HINT_SOFT_REMOVE) / 2, 200)).toBe(100)
    expect(rimAlpha((HINT_SOFT_KEEP + HINT_KEEP) / 2, 55)).toBe(155)
    // Darker is never more opaque: a stroke painted over again only takes more away.
    for (let v = 1; v < 128; v++) expect(rimAlpha(v, 200)).toBeGreaterThanOrEqual(rimAlpha(v - 1, 200))
  })
})

describe('constrainMask', () => {
  it('sets the cells a stroke covers on the mask grid and leaves the given mask as it was', () => {
    const mask = { data: Buffer.alloc(4 * 4, 100), width: 4, height: 4 }
    // An 8×8 hint over a 4×4 grid: keep covers cell (0,0) whole, remove cell (3,3); one keep pixel in (2,0) (a quarter).
    const hint = hintOf(8, 8, [
      [0, 0, 2, 2, 255],
      [6, 6, 2, 2, 0],
      [4, 0, 1, 1, 255]
    ])
    const out = constrainMask(mask, hint)
    expect(out.data[0]).toBe(255)
    expect(out.data[15]).toBe(0)
    expect(out.data[2]).toBe(100) // under half of the cell: left to the model
    expect(out.data[5]).toBe(100)
    expect([...mask.data].every((v) => v === 100)).toBe(true)
  })

  it("with a box of cells, sets those as without the box and leaves the others the model's", () => {
    const mask = { data: Buffer.alloc(64 * 48, 100), width: 64, height: 48 }
    const hint = hintOf(50, 40, [
      [3, 3, 20, 10, 255],
      [30, 20, 15, 15, 0]
    ])
    const whole = constrainMask(mask, hint)
    const cells = { x: 10, y: 8, width: 40, height: 30 }
    const some = constrainMask(mask, hint, cells)
    for (let y = 0; y < 48; y++)
      for (let x = 0; x < 64; x++) {
        const inside = x >= 10 && x < 50 && y >= 8 && y < 38
        expect(some.data[y * 64 + x], `${x},${y}`).toBe(inside ? whole.data[y * 64 + x] : 100)
      }
  })
})

describe('mergeHinted', () => {
  it('strokes hard, the hinted result within the band, the plain result outside', () => {
    const w = 40
    const h = 1
    const plain = { alpha: Buffer.alloc(w, 7), foreground: Buffer.alloc(w * 4, 1) }
    const hinted = { alpha: Buffer.alloc(w, 99), foreground: Buffer.alloc(w * 4, 2) }
    const image = Buffer.alloc(w * 4, 3)
    const hint = hintOf(w, h, [
      [10, 0, 2, 1, 255],
      [30, 0, 1, 1, 0]
    ])
    const out = mergeHinted(plain, hinted, hint, image, 4)
    for (let x = 0; x < w; x++) {
      const expected = x === 10 || x === 11 ? 255 : x === 30 ? 0 : (x >= 6 && x <= 15) || (x >= 26 && x <= 34) ? 99 : 7
      expect(out.alpha[x], `x=${x}`).toBe(expected)
    }
    expect([...out.foreground.subarray(40, 44)]).toEqual([3, 3, 3, 1]) // keep: the photo's colour, plain's A
    expect([...out.foreground.subarray(24, 28)]).toEqual([2, 2, 2, 1]) // band: the hinted colours
    expect([...out.foreground.subarray(0, 4)]).toEqual([1, 1, 1, 1]) // outside: untouched
    expect(plain.alpha[10]).toBe(7) // inputs are not modified
  })

  it('with an update, makes only its area so and keeps the earlier result everywhere else', () => {
    const w = 40
    const plain = { alpha: Buffer.alloc(w, 7), foreground: Buffer.alloc(w * 4, 1) }
    const hinted = { alpha: Buffer.alloc(w, 99), foreground: Buffer.alloc(w * 4, 2) }
    const onto = { alpha: Buffer.alloc(w, 50), foreground: Buffer.alloc(w * 4, 5) }
    const hint = hintOf(w, 1, [[20, 0, 1, 1, 255]])
    const out = mergeHinted(plain, hinted, hint, Buffer.alloc(w * 4, 3), 2, { onto, area: { x: 15, y: 0, width: 10, height: 1 } })
    const expected = (x: number): number => (x < 15 || x >= 25 ? 50 : x === 20 ? 255 : x >= 18 && x <= 22 ? 99 : 7)
    for (let x = 0; x < w; x++) expect(out.alpha[x], `x=${x}`).toBe(expected(x))
    expect(onto.alpha[20]).toBe(50) // the earlier result is not modified
  })

  it("the band is the refine step's reach, at least 16 pixels", () => {
    expect(hintBand(300, 200)).toBe(16)
    expect(hintBand(4096, 3000)).toBe(160)
  })
})

describe('changedStrokes', () => {
  it('boxes the pixels whose stroke was added, taken back or turned', () => {
    const before = hintOf(30, 20, [[2, 2, 3, 3, 255]])
    expect(changedStrokes(before, before)).toBeNull()
    expect(changedStrokes(null, hintOf(30, 20, []))).toBeNull()
    expect(changedStrokes(null, before)).toEqual({ x: 2, y: 2, width: 3, height: 3 })
    // A grey that is no stroke stays none; keep turned to remove, and a new stroke, count.
    const after = hintOf(30, 20, [
      [2, 2, 3, 3, 255],
      [4, 4, 1, 1, 0],
      [20, 10, 2, 5, 0],
      [0, 19, 30, 1, 140]
    ])
    expect(changedStrokes(before, after)).toEqual({ x: 4, y: 4, width: 18, height: 11 })
    expect(grown({ x: 4, y: 4, width: 18, height: 11 }, 5, 30, 20)).toEqual({ x: 0, y: 0, width: 27, height: 20 })
  })
})

describe('computeAlpha with a hint', () => {
  /** A stand-in model: the left half of the (stretched) image is the subject, with a soft edge. */
  function standIn(): MaskSource {
    const modelMask = Buffer.alloc(MODEL_SIZE * MODEL_SIZE)
    for (let y = 0; y < MODEL_SIZE; y++)
      for (let x = 0; x < MODEL_SIZE; x++) modelMask[y * MODEL_SIZE + x] = Math.max(0, Math.min(255, (512 - x) * 32 + 128))
    return {
      variant: 'medium',
      segment: vi.fn(),
      segmentAtModelSize: vi.fn(async () => ({ mask: Buffer.from(modelMask), inferenceMs: 1 }))
    }
  }
  const width = 240
  const height = 160
  const image: DecodedImage = { data: fuzzyComposite(width, height, SKY).image, width, height, channels: 4, hasAlpha: false, warnings: [] }

  it.each(['edges', 'none'] as const)(
    'refine=%s: keep 255 and remove 0 on the strokes, the plain alpha beyond the band',
    async (refine) => {
      const params = { alpha: 'auto', refine } as const
      const plain = await computeAlpha(image, Buffer.from('input'), { segmenter: standIn() }, params)
      // Keep a piece of background (right half), remove a piece of subject (left half).
      const hint = hintOf(width, height, [
        [180, 40, 30, 30, 255],
        [30, 90, 30, 30, 0]
      ])
      const hinted = await computeAlpha(image, Buffer.from('input'), { segmenter: standIn() }, params, undefined, hint)
      const near = strokeBand(hint, hintBand(width, height))
      let changedNear = 0
      for (let i = 0; i < width * height; i++) {
        if (hint.data[i] === 255) expect(hinted.alpha[i]).toBe(255)
        else if (hint.data[i] === 0) expect(hinted.alpha[i]).toBe(0)
        else if (!near[i]) expect(hinted.alpha[i]).toBe(plain.alpha[i])
        else if (hinted.alpha[i] !== plain.alpha[i]) changedNear++
        if (!near[i]) expect(hinted.foreground.subarray(i * 4, i * 4 + 4).equals(plain.foreground.subarray(i * 4, i * 4 + 4))).toBe(true)
      }
      expect(plain.alpha[55 * width + 195]).toBe(0) // the kept piece was background
      expect(plain.alpha[105 * width + 45]).toBe(255) // the removed piece was subject
      if (refine === 'edges') expect(changedNear).toBeGreaterThan(0) // the edges next to the strokes were refined again
    }
  )

  it("from the last result, a stroke's preview is what all the strokes at once give", async () => {
    const params = { refine: 'edges' } as const
    const deps = { segmenter: standIn() }
    const run = await deps.segmenter.segmentAtModelSize!(image)
    const mask = { data: run.mask, width: MODEL_SIZE, height: MODEL_SIZE }
    const plain = await refined(image, mask, deps, params)
    // Two strokes far apart on the subject's edge (x 120), then a third near the first.
    const first = hintOf(width, height, [[110, 20, 12, 6, 255]])
    const second = hintOf(width, height, [
      [110, 20, 12, 6, 255],
      [112, 130, 14, 8, 0]
    ])
    const third = hintOf(width, height, [
      [110, 20, 12, 6, 255],
      [112, 130, 14, 8, 0],
      [118, 32, 10, 6, 0]
    ])
    let before = { strokes: first, result: await applyHint(image, mask, plain, first, deps, params) }
    for (const strokes of [second, third]) {
      const step = await applyHint(image, mask, plain, strokes, deps, params, undefined, before)
      const once = await applyHint(image, mask, plain, strokes, deps, params)
      let worst = 0
      for (let i = 0; i < width * height; i++) worst = Math.max(worst, Math.abs(step.alpha[i]! - once.alpha[i]!))
      for (let i = 0; i < step.foreground.length; i++) worst = Math.max(worst, Math.abs(step.foreground[i]! - once.foreground[i]!))
      expect(worst).toBeLessThanOrEqual(1) // float rounding in running sums that start elsewhere
      before = { strokes, result: step }
    }
    // The same strokes again: the last result as it is, nothing refined.
    expect(await applyHint(image, mask, plain, third, deps, params, undefined, before)).toBe(before.result)
  })

  it('an all-grey hint changes nothing', async () => {
    const params = { alpha: 'auto', refine: 'edges' } as const
    const plain = await computeAlpha(image, Buffer.from('input'), { segmenter: standIn() }, params)
    const hinted = await computeAlpha(image, Buffer.from('input'), { segmenter: standIn() }, params, undefined, hintOf(width, height, []))
    expect(hinted.alpha.equals(plain.alpha)).toBe(true)
  })
})

describe('decodeHint', () => {
  it('gives one grey plane of the image size; transparency counts as grey', async () => {
    const rgba = Buffer.alloc(6 * 4 * 4)
    for (let i = 0; i < 24; i++) rgba.set(i < 6 ? [255, 255, 255, 255] : i < 12 ? [0, 0, 0, 255] : [0, 0, 0, 0], i * 4)
    const png = await sharp(rgba, { raw: { width: 6, height: 4, channels: 4 } })
      .png()
      .toBuffer()
    const plane = await decodeHint({ bytes: png, width: 6, height: 4 })
    expect(plane).toMatchObject({ width: 6, height: 4 })
    expect([...plane.data]).toEqual([...Array(6).fill(255), ...Array(6).fill(0), ...Array(12).fill(128)])
  })

  it('refuses another size, and what is not a PNG, JPEG or WebP', async () => {
    const png = await sharp({ create: { width: 5, height: 4, channels: 3, background: '#808080' } })
      .png()
      .toBuffer()
    await expect(decodeHint({ bytes: png, width: 6, height: 4 })).rejects.toThrow(/the hint is 5×4; the image is 6×4/)
    const gif = await sharp({ create: { width: 6, height: 4, channels: 3, background: '#fff' } })
      .gif()
      .toBuffer()
    await expect(decodeHint({ bytes: gif, width: 6, height: 4 })).rejects.toBeInstanceOf(JobFailure)
  })
})
