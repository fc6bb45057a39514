/**
 * The image pipeline (SPEC §5): decode → mask → compose → encode, one module per step.
 * For now only the `clipping` variation; refine, backgrounds, shadows and PSD come later.
 */
import type { OutputFormat } from '../../../shared/api'
import { JobFailure } from '../errors'
import { decodeImage } from './decode'
import { encodeImage } from './encode'
import { makeCutout } from './cutout'
import type { Segmenter } from './mask'

export { decodeImage, type DecodedImage, type DecodeOptions } from './decode'
export { encodeImage, JPG_FLATTEN_WARNING, type EncodedImage, type EncodeOptions, type RgbaImage } from './encode'
export { makeCutout, type RgbaPixels } from './cutout'
export { Segmenter, MODEL_SIZE, type SegmentInput, type SegmenterOptions } from './mask'
export { loadModel, clearModelCache, defaultModelDir, type ModelVariant } from './model'

/** The job statuses the pipeline moves through (the queue maps them onto the job record). */
export type PipelineStage = 'segmenting' | 'pending_compose' | 'encoding'

export interface ClippingOptions {
  format: OutputFormat
  maxPixels: number
  /** 1–100 for jpg/webp. */
  quality?: number
  signal?: AbortSignal
  onStage?: (stage: PipelineStage) => void
}

export interface ClippingOutput {
  variation: 'clipping'
  /** The format as requested: `jpg` stays `jpg`, `jpeg` stays `jpeg`. */
  ext: string
  bytes: Buffer
}

export interface ClippingResult {
  outputs: ClippingOutput[]
  warnings: string[]
}

/**
 * Cuts the subject out of `input` and encodes it as `opts.format`. Throws `JobFailure` (with a
 * reason) for anything the job should fail with, or the signal's reason once aborted.
 */
export async function processClipping(
  input: Buffer,
  // Only `segment` is used: a Segmenter, or a stand-in in tests.
  deps: { segmenter: Pick<Segmenter, 'segment'> },
  opts: ClippingOptions
): Promise<ClippingResult> {
  const { signal } = opts
  signal?.throwIfAborted()
  // Fail before spending seconds on the model for an output we cannot write yet.
  if (opts.format === 'psd') throw new JobFailure('not_implemented', 'PSD output is not available yet')
  const image = await decodeImage(input, { maxPixels: opts.maxPixels })

  signal?.throwIfAborted()
  opts.onStage?.('segmenting')
  const mask = await deps.segmenter.segment(image, signal)

  signal?.throwIfAborted()
  opts.onStage?.('pending_compose')
  const cutout = makeCutout(image, mask)

  signal?.throwIfAborted()
  opts.onStage?.('encoding')
  const encoded = await encodeImage({ ...image, data: cutout }, opts.format, { quality: opts.quality })

  return {
    outputs: [{ variation: 'clipping', ext: opts.format, bytes: encoded.bytes }],
    warnings: [...image.warnings, ...encoded.warnings]
  }
}
