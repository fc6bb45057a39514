/**
 * processJob with a stand-in segmenter: every variation in every output format, with the
 * warnings and ignored variations a job reports (the real model runs in test/params-jobs).
 */
import { readPsd } from 'ag-psd'
import sharp from 'sharp'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { OUTPUT_FORMATS, VARIATIONS } from '../../../../shared/api'
import { paramsOf } from '../../../../../test/fixtures/compose-fixtures'
import { flattenWarning } from './encode'
import { processJob } from '../index'
import type { SegmentInput } from '../../segment/mask/mask'
import { psdWithoutCanvas } from '../../../../../test/helpers/psd'

beforeAll(psdWithoutCanvas)

const W = 160
const H = 120
const SUBJECT = { x: 50, y: 30, width: 60, height: 70 }

/** A stand-in for the model: the subject is the rectangle SUBJECT (what the photo shows). */
function rectSegmenter(rect: typeof SUBJECT | null = SUBJECT) {
  return {
    segment: vi.fn(async (image: SegmentInput) => {
      const mask = Buffer.alloc(image.width * image.height)
      if (rect)
        for (let y = rect.y; y < rect.y + rect.height; y++) mask.fill(255, y * image.width + rect.x, y * image.width + rect.x + rect.width)
      return mask
    })
  }
}

let photo: Buffer
beforeAll(async () => {
  photo = await sharp({ create: { width: W, height: H, channels: 3, background: '#8899aa' } })
    .composite([
      {
        input: { create: { width: SUBJECT.width, height: SUBJECT.height, channels: 3, background: '#c0201a' } },
        left: SUBJECT.x,
        top: SUBJECT.y
      }
    ])
    .png()
    .toBuffer()
})

const MAGIC: Record<string, (b: Buffer) => boolean> = {
  png: (b) => b.toString('latin1', 1, 4) === 'PNG',
  webp: (b) => b.toString('latin1', 8, 12) === 'WEBP',
  tiff: (b) => ['II*\0', 'MM\0*'].includes(b.toString('latin1', 0, 4)),
  jpg: (b) => b[0] === 0xff && b[1] === 0xd8,
  jpeg: (b) => b[0] === 0xff && b[1] === 0xd8,
  psd: (b) => b.toString('latin1', 0, 4) === '8BPS'
}

describe('every variation × every output format (stand-in segmenter)', () => {
  const all = paramsOf(`background=#FFFFFF;variations=${VARIATIONS.join(',')}`)

  it.each(OUTPUT_FORMATS)('%s', async (format) => {
    const result = await processJob(photo, { segmenter: rectSegmenter() }, { format, params: all, maxPixels: 1e8 })
    expect(result.outputs.map((o) => o.variation)).toEqual([...VARIATIONS])
    expect(result.ignored).toEqual([])
    for (const out of result.outputs) {
      expect(out.ext).toBe(format)
      expect(MAGIC[format]!(out.bytes), `${out.variation}.${format}`).toBe(true)
      if (format === 'psd') {
        const psd = readPsd(out.bytes, { skipLayerImageData: true, skipCompositeImageData: true })
        expect([psd.width, psd.height]).toEqual([W, H])
        const expected = {
          clipping: ['Subject'],
          background: ['Background'],
          compose: ['Background', 'Subject'],
          shadowTop: ['Background', 'Shadow', 'Subject'],
          mask: ['Mask']
        }
        expect(psd.children!.map((l) => l.name)).toEqual(expected[out.variation])
      } else {
        const meta = await sharp(out.bytes).metadata()
        expect([meta.width, meta.height]).toEqual([W, H])
        const alpha = format === 'png' || format === 'webp' || format === 'tiff'
        if (out.variation === 'mask') expect(meta.channels, `mask.${format}`).toBe(format === 'webp' ? 3 : 1)
        // WebP stores no alpha plane for an opaque image (white background): then 3 channels.
        else if (format === 'webp' && out.variation !== 'clipping') expect(meta.channels).toBeGreaterThanOrEqual(3)
        else expect(meta.channels, `${out.variation}.${format}`).toBe(alpha ? 4 : 3)
      }
    }
    // Only the transparent variation is flattened for jpg/jpeg; white backgrounds and the mask are opaque.
    expect(result.warnings).toEqual(format === 'jpg' || format === 'jpeg' ? { clipping: [flattenWarning(format, 'clipping')] } : {})
  })

  it('jpg: each transparent variation is flattened with a warning naming it', async () => {
    const params = paramsOf('background=transparent;variations=clipping,background,compose,shadowTop,mask')
    const result = await processJob(photo, { segmenter: rectSegmenter() }, { format: 'jpg', params, maxPixels: 1e8 })
    expect(result.warnings).toEqual({
      clipping: [flattenWarning('jpg', 'clipping')],
      background: [flattenWarning('jpg', 'background')],
      compose: [flattenWarning('jpg', 'compose')],
      shadowTop: [flattenWarning('jpg', 'shadowTop')]
    })
  })

  it('a shadowTop that cannot be made is ignored with a warning; the rest is made', async () => {
    for (const format of ['png', 'psd'] as const) {
      const result = await processJob(
        photo,
        { segmenter: rectSegmenter(null) },
        { format, params: paramsOf('', 'background'), maxPixels: 1e8 }
      )
      expect(result.outputs.map((o) => o.variation)).toEqual(['clipping', 'background', 'compose'])
      expect(result.ignored).toEqual(['shadowTop'])
      expect(result.warnings.shadowTop).toEqual(['not made: no subject was found, so there is nothing to cast a shadow'])
    }
  })

  it('quality applies to webp and jpg', async () => {
    const size = async (quality: number) =>
      (
        await processJob(
          photo,
          { segmenter: rectSegmenter() },
          { format: 'webp', params: paramsOf(`variations=compose;background=blur;quality=${quality}`), maxPixels: 1e8 }
        )
      ).outputs[0]!.bytes.length
    expect(await size(10)).toBeLessThan(await size(100))
  })
})
