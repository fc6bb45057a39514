import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { openDatabase, type Db } from '../store/db'
import { MaskCache } from '../store/mask-cache'
import { computeAlpha, KEEP_WITHOUT_ALPHA_WARNING } from './segment-and-refine'
import { maskModelKey } from '../segment/look/model-mask'
import type { MaskSource } from '../segment/mask/types'
import type { DecodedImage } from './decode/decode'
import { MODEL_SIZE, type SegmentInput } from '../segment/mask/mask'
import { fuzzyComposite, SKY } from '../../../../test/fixtures/refine-fixtures'
import { uncertainty } from '../segment/mask/uncertainty'

const EDGES = { alpha: 'auto', refine: 'edges' } as const
const NONE = { alpha: 'auto', refine: 'none' } as const

/** A stand-in model: the left half of the (stretched) image is the subject, with a soft edge. */
function standIn(variant: 'small' | 'medium' = 'medium') {
  const modelMask = Buffer.alloc(MODEL_SIZE * MODEL_SIZE)
  for (let y = 0; y < MODEL_SIZE; y++)
    for (let x = 0; x < MODEL_SIZE; x++) modelMask[y * MODEL_SIZE + x] = Math.max(0, Math.min(255, (512 - x) * 32 + 128))
  const source = {
    variant,
    segment: vi.fn(async (image: SegmentInput) => Buffer.alloc(image.width * image.height, 255)),
    segmentAtModelSize: vi.fn(async () => ({ mask: Buffer.from(modelMask), inferenceMs: 1 }))
  }
  return source satisfies MaskSource
}

function opaque(width = 64, height = 48): DecodedImage {
  const t = fuzzyComposite(width, height, SKY)
  return { data: t.image, width, height, channels: 4, hasAlpha: false, warnings: [] }
}

/** A 4×2 RGBA image whose right half is transparent (a cut-out already). */
function transparent(): DecodedImage {
  const data = Buffer.alloc(4 * 2 * 4)
  for (let i = 0; i < 8; i++) data.set([200, 100, 50, i % 4 < 2 ? 255 : i % 4 === 2 ? 100 : 0], i * 4)
  return { data, width: 4, height: 2, channels: 4, hasAlpha: true, warnings: [] }
}

describe('computeAlpha', () => {
  it('alpha=keep with a real alpha: the input alpha, opaque colours, no model', async () => {
    const seg = standIn()
    const image = transparent()
    const out = await computeAlpha(image, Buffer.from('input'), { segmenter: seg }, { alpha: 'keep', refine: 'edges' })
    expect([...out.alpha]).toEqual([255, 255, 100, 0, 255, 255, 100, 0])
    for (let i = 0; i < 8; i++) expect([...out.foreground.subarray(i * 4, i * 4 + 4)]).toEqual([200, 100, 50, 255])
    expect(out).toMatchObject({ warnings: [], source: 'input' })
    expect(seg.segmentAtModelSize).not.toHaveBeenCalled()
    expect(seg.segment).not.toHaveBeenCalled()
    expect(image.data[11]).toBe(100) // the decoded image is not modified
  })

  it('alpha=keep without transparency: the model runs, and a warning says so', async () => {
    const seg = standIn()
    const out = await computeAlpha(opaque(), Buffer.from('input'), { segmenter: seg }, { alpha: 'keep', refine: 'none' })
    expect(seg.segmentAtModelSize).toHaveBeenCalledTimes(1)
    expect(out.warnings).toEqual([KEEP_WITHOUT_ALPHA_WARNING])
    expect(out.source).toBe('model')
  })

  it('refine=none: the model mask resized, the input colours as they are', async () => {
    const image = opaque()
    const out = await computeAlpha(image, Buffer.from('input'), { segmenter: standIn() }, NONE)
    expect(out.foreground).toBe(image.data)
    expect(out.alpha.length).toBe(64 * 48)
    expect(out.alpha[0]).toBe(255) // left: subject
    expect(out.alpha[63]).toBe(0) // right: background
  })

  it('refine=edges: full-size alpha and new foreground colours', async () => {
    const image = opaque(200, 150)
    const out = await computeAlpha(image, Buffer.from('input'), { segmenter: standIn() }, EDGES)
    expect(out.alpha.length).toBe(200 * 150)
    expect(out.foreground.length).toBe(200 * 150 * 4)
    expect(out.foreground).not.toBe(image.data)
    expect(out.alpha[150 * 200 - 1]).toBe(0)
  })

  it('an input with transparency and the model: what was transparent stays so', async () => {
    const out = await computeAlpha(transparent(), Buffer.from('input'), { segmenter: standIn() }, NONE)
    // Model: everything is subject (the 4-px image maps to the mask's left half)... times input alpha.
    expect(out.alpha[3]).toBe(0)
    expect(out.alpha[2]).toBeLessThanOrEqual(100)
    for (let i = 0; i < 8; i++) expect(out.foreground[i * 4 + 3]).toBe(255)
  })

  it("gives the cutout's uncertainty: from the model's first mask and the final alpha; 0 for the input's own alpha", async () => {
    const seg = standIn()
    const image = opaque(200, 150)
    const out = await computeAlpha(image, Buffer.from('input'), { segmenter: seg }, EDGES)
    const { mask } = await seg.segmentAtModelSize.mock.results[0]!.value
    expect(out.uncertainty).toBe(
      uncertainty({ data: mask, width: MODEL_SIZE, height: MODEL_SIZE }, { data: out.alpha, width: 200, height: 150 })
    )
    expect(out.uncertainty).toBeGreaterThanOrEqual(0)
    expect(out.uncertainty).toBeLessThanOrEqual(1)
    const kept = await computeAlpha(transparent(), Buffer.from('input'), { segmenter: seg }, { alpha: 'keep', refine: 'edges' })
    expect(kept.uncertainty).toBe(0)
  })

  it('a segmenter with only `segment` (full-size masks) works, without the cache', async () => {
    const segment = vi.fn(async (image: SegmentInput) => Buffer.alloc(image.width * image.height, 255))
    const out = await computeAlpha(opaque(), Buffer.from('input'), { segmenter: { segment } }, EDGES)
    expect(segment).toHaveBeenCalledTimes(1)
    expect(out.alpha.every((v) => v === 255)).toBe(true)
    expect(out.source).toBe('model')
  })

  describe('with the mask cache', () => {
    let dir: string
    let db: Db
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'clipdesk-alpha-'))
      db = openDatabase(join(dir, 'db.sqlite'))
    })
    afterEach(() => {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it('the same input with other parameters does not run the model again; another input or model does', async () => {
      const maskCache = new MaskCache(db)
      const seg = standIn('medium')
      const image = opaque()
      const input = await sharp(image.data, { raw: { width: 64, height: 48, channels: 4 } })
        .png()
        .toBuffer()
      const first = await computeAlpha(image, input, { segmenter: seg, maskCache }, EDGES)
      const second = await computeAlpha(image, input, { segmenter: seg, maskCache }, NONE)
      expect(seg.segmentAtModelSize).toHaveBeenCalledTimes(1)
      expect([first.source, second.source]).toEqual(['model', 'cache'])
      // The cached mask is the model's own, so the result is the same as without the cache.
      const fresh = await computeAlpha(image, input, { segmenter: standIn() }, NONE)
      expect(second.alpha.equals(fresh.alpha)).toBe(true)

      await computeAlpha(image, Buffer.concat([input, Buffer.from([0])]), { segmenter: seg, maskCache }, NONE)
      expect(seg.segmentAtModelSize).toHaveBeenCalledTimes(2)
      const small = standIn('small')
      await computeAlpha(image, input, { segmenter: small, maskCache }, NONE)
      expect(small.segmentAtModelSize).toHaveBeenCalledTimes(1)
      expect(maskCache.stats().entries).toBe(3)
    })

    it('keys masks by model variant and format version', () => {
      expect(maskModelKey('medium')).toBe('isnet-medium/1')
      expect(maskModelKey('small')).toBe('isnet-small/1')
    })
  })
})
