/**
 * The image pipeline (SPEC §5): decode → alpha (mask, refine) → compose → encode, one module
 * per step. `processJob` runs one job's input through all of them.
 */
import type { OutputFormat, Variation } from '../../../shared/api'
import type { JobParams } from '../../../shared/params-types'
import { JobFailure } from '../errors'
import { computeAlpha, type AlphaDeps } from './alpha'
import { composeVariations } from './compose'
import { decodeImage, type DecodedImage } from './decode'
import { encodeVariation } from './encode'
import { srgbToNative, type ToNative } from './native-colour'
import type { ExifFields, SourceMetadata } from './source-info'

export { decodeImage, type DecodedImage, type DecodeOptions } from './decode'
export { encodeImage, encodeVariation, flattenWarning, JPG_FLATTEN_WARNING, type EncodedImage, type EncodeOptions, type RgbaImage } from './encode'
export { makeCutout, type RgbaPixels } from './cutout'
export { Segmenter, MODEL_SIZE, type SegmentInput, type SegmenterOptions } from './mask'
export { loadModel, clearModelCache, defaultModelDir, type ModelVariant } from './model'

/** The job statuses the pipeline moves through (the queue maps them onto the job record). */
export type PipelineStage = 'segmenting' | 'pending_compose' | 'encoding'

export interface JobPlan {
  format: OutputFormat
  params: JobParams
  maxPixels: number
  /**
   * Decodes the input. The engine passes its sandbox (untrusted bytes are never decoded on its
   * thread); without it the input is decoded in this process, for trusted inputs (benchmarks).
   */
  decode?: (bytes: Buffer) => Promise<DecodedImage>
  /**
   * Converts sRGB colours into the input's own colour space (its profile is untrusted bytes:
   * the engine passes its sandbox); without it, in this process.
   */
  toNative?: ToNative
  signal?: AbortSignal
  onStage?: (stage: PipelineStage) => void
}

export interface JobOutput {
  variation: Variation
  /** The format as requested: `jpg` stays `jpg`, `jpeg` stays `jpeg`. */
  ext: string
  bytes: Buffer
}

export interface JobResult {
  outputs: JobOutput[]
  warnings: Partial<Record<Variation, string[]>>
  ignored: Variation[]
}

function addWarnings(into: Partial<Record<Variation, string[]>>, variation: Variation, list: string[]): void {
  if (list.length > 0) into[variation] = [...(into[variation] ?? []), ...list]
}

/**
 * Runs one input through the pipeline and encodes every variation the plan asks for. Throws
 * `JobFailure` (with a reason) for anything the job should fail with, or the signal's reason
 * once aborted.
 */
export async function processJob(input: Buffer, deps: AlphaDeps, plan: JobPlan): Promise<JobResult> {
  const { signal, params } = plan
  signal?.throwIfAborted()
  const image = plan.decode ? await plan.decode(input) : await decodeImage(input, { maxPixels: plan.maxPixels })

  signal?.throwIfAborted()
  plan.onStage?.('segmenting')
  const alpha = await computeAlpha(image, input, deps, params, signal)

  signal?.throwIfAborted()
  plan.onStage?.('pending_compose')
  const toNative = plan.toNative ?? srgbToNative
  const composed = await composeVariations(image, alpha, params, { layers: plan.format === 'psd', toNative })

  signal?.throwIfAborted()
  plan.onStage?.('encoding')
  const warnings: Partial<Record<Variation, string[]>> = { ...composed.warnings }
  // Input-level warnings (e.g. an animated GIF) concern every output; they go with the primary.
  addWarnings(warnings, params.primary, [...image.warnings, ...alpha.warnings])
  const kept = outputMetadata(image.metadata, params.metadata)
  const outputs: JobOutput[] = []
  for (const v of composed.variations) {
    const encoded = await encodeVariation(v, plan.format, { quality: params.quality ?? undefined, ...kept })
    addWarnings(warnings, v.variation, encoded.warnings)
    outputs.push({ variation: v.variation, ext: plan.format, bytes: encoded.bytes })
  }
  return { outputs, warnings, ignored: composed.ignored }
}

/**
 * The XMP, EXIF and IPTC an output carries under the job's `metadata` setting: `keep` without
 * any position (docs/pipeline.md, "Metadata"), `keep-gps` with it, `strip` none.
 */
export function outputMetadata(
  source: SourceMetadata | undefined,
  setting: JobParams['metadata']
): { xmp: string | null; exif: ExifFields | null; iptc: Buffer | null } {
  if (!source || setting === 'strip') return { xmp: null, exif: null, iptc: null }
  const gps = setting === 'keep-gps'
  const exif = source.exif && !gps ? { ...source.exif, gps: {} } : source.exif
  return { xmp: gps ? source.xmpWithGps : source.xmp, exif, iptc: gps ? source.iptcWithGps : source.iptc }
}
