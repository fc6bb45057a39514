import sharp from 'sharp'
import { describe, expect, it, vi } from 'vitest'
import { JobFailure } from '../errors'
import { flattenWarning } from './encode/encode'
import { CLIPPING_DEFAULTS } from '../../../shared/params-types'
import { processJob, type JobPlan, type PipelineStage } from './index'

/** The clipping job of earlier versions: the defaults of mode `clipping`. */
const processClipping = (input: Buffer, deps: Parameters<typeof processJob>[1], plan: Omit<JobPlan, 'params'>) =>
  processJob(input, deps, { ...plan, params: CLIPPING_DEFAULTS })
import { Segmenter, type SegmentInput } from '../segment/mask/mask'
import { sceneMaskScores, scenePng, solidRgba } from '../../../../test/fixtures/test-fixtures'

const MAX = 100_000_000

/** A stand-in for the model: the left half of the image is the subject. */
function halfSegmenter() {
  return {
    segment: vi.fn(async (image: SegmentInput) => {
      const mask = Buffer.alloc(image.width * image.height)
      for (let y = 0; y < image.height; y++) mask.fill(255, y * image.width, y * image.width + Math.floor(image.width / 2))
      return mask
    })
  }
}

const opaquePng = (w = 8, h = 6) =>
  sharp(solidRgba(w, h, [200, 30, 60, 255]), { raw: { width: w, height: h, channels: 4 } })
    .png()
    .toBuffer()

describe('processClipping (stand-in segmenter)', () => {
  it('runs decode → segmenting → pending_compose → encoding and returns one clipping', async () => {
    const segmenter = halfSegmenter()
    const stages: PipelineStage[] = []
    const result = await processClipping(
      await opaquePng(),
      { segmenter },
      { format: 'png', maxPixels: MAX, onStage: (s: PipelineStage) => stages.push(s) }
    )

    expect(stages).toEqual(['segmenting', 'pending_compose', 'encoding'])
    expect(segmenter.segment).toHaveBeenCalledTimes(1)
    expect(result.warnings).toEqual({})
    expect(result.outputs).toHaveLength(1)
    const [out] = result.outputs
    expect(out).toMatchObject({ variation: 'clipping', ext: 'png' })
    const { data, info } = await sharp(out!.bytes).raw().toBuffer({ resolveWithObject: true })
    expect([info.width, info.height, info.channels]).toEqual([8, 6, 4])
    expect([...data.subarray(0, 4)]).toEqual([200, 30, 60, 255])
    expect(data[7 * 4 + 3]).toBe(0)
  })

  it.each(['jpg', 'jpeg'] as const)('keeps the requested extension %s and reports the flattening', async (format) => {
    const result = await processClipping(await opaquePng(), { segmenter: halfSegmenter() }, { format, maxPixels: MAX })
    expect(result.outputs[0]!.ext).toBe(format)
    expect((await sharp(result.outputs[0]!.bytes).metadata()).format).toBe('jpeg')
    expect(result.warnings).toEqual({ clipping: [flattenWarning(format, 'clipping')] })
  })

  it("returns the cutout's uncertainty: a number in [0, 1] from the model; 0 when the input's alpha is kept", async () => {
    const result = await processClipping(await opaquePng(64, 48), { segmenter: halfSegmenter() }, { format: 'png', maxPixels: MAX })
    expect(result.uncertainty).toBeGreaterThanOrEqual(0)
    expect(result.uncertainty).toBeLessThanOrEqual(1)
    const segmenter = halfSegmenter()
    const half = await sharp(solidRgba(8, 6, [200, 30, 60, 128]), { raw: { width: 8, height: 6, channels: 4 } })
      .png()
      .toBuffer()
    const kept = await processJob(half, { segmenter }, { format: 'png', maxPixels: MAX, params: { ...CLIPPING_DEFAULTS, alpha: 'keep' } })
    expect(kept.uncertainty).toBe(0)
    expect(segmenter.segment).not.toHaveBeenCalled()
  })

  it('passes on decode warnings (animated GIF)', async () => {
    const frames = Buffer.concat([solidRgba(6, 4, [255, 0, 0, 255]), solidRgba(6, 4, [0, 0, 255, 255])])
    const gif = await sharp(frames, { raw: { width: 6, height: 8, channels: 4, pageHeight: 4 } })
      .gif()
      .toBuffer()
    const result = await processClipping(gif, { segmenter: halfSegmenter() }, { format: 'webp', maxPixels: MAX })
    expect(result.warnings).toEqual({ clipping: ['animated GIF: only the first frame was used'] })
  })

  it('fails before the model for bad input or a too-large image', async () => {
    const segmenter = halfSegmenter()
    const png = await opaquePng()
    const cases: Array<[() => Promise<unknown>, string]> = [
      [() => processClipping(Buffer.from('nope'), { segmenter }, { format: 'png', maxPixels: MAX }), 'unsupported_image'],
      [() => processClipping(png, { segmenter }, { format: 'png', maxPixels: 10 }), 'image_too_large']
    ]
    for (const [run, reason] of cases) {
      const err = await run().catch((e: unknown) => e)
      expect(err).toBeInstanceOf(JobFailure)
      expect((err as JobFailure).reason).toBe(reason)
    }
    expect(segmenter.segment).not.toHaveBeenCalled()
  })

  it('throws the reason of an aborted signal', async () => {
    const reason = new Error('cancelled')
    const segmenter = halfSegmenter()
    await expect(
      processClipping(await opaquePng(), { segmenter }, { format: 'png', maxPixels: MAX, signal: AbortSignal.abort(reason) })
    ).rejects.toBe(reason)
    expect(segmenter.segment).not.toHaveBeenCalled()
  })
})

describe('processClipping (real model)', () => {
  it('cuts the ball out of the synthetic scene', async () => {
    const segmenter = await Segmenter.create()
    try {
      const stages: PipelineStage[] = []
      const result = await processClipping(
        await scenePng(),
        { segmenter },
        { format: 'png', maxPixels: MAX, onStage: (s: PipelineStage) => stages.push(s) }
      )
      expect(stages).toEqual(['segmenting', 'pending_compose', 'encoding'])
      const { data, info } = await sharp(result.outputs[0]!.bytes).raw().toBuffer({ resolveWithObject: true })
      expect([info.width, info.height, info.channels]).toEqual([512, 384, 4])
      const scores = sceneMaskScores(data, 4, 3)
      expect(scores.foreground).toBeGreaterThan(0.95)
      expect(scores.background).toBeGreaterThan(0.95)
    } finally {
      await segmenter.close()
    }
  })
})
