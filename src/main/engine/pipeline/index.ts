/**
 * The image pipeline (docs/pipeline.md): decode → alpha (mask, refine) → compose → encode, one module
 * per step. `processJob` runs one job's input through all of them; compose and encode are
 * `render.ts`, which the engine runs in a sandbox process.
 */
import type { OutputFormat } from '../../../shared/api'
import type { JobParams, SecondLook } from '../../../shared/params-types'
import { computeAlpha, type AlphaDeps } from './segment-and-refine'
import { decodeImage, type DecodedImage } from './decode/decode'
import type { HintPlane } from './guide/hint'
import type { LookBox } from './guide/look-again'
import type { ToNative } from './metadata/native-colour'
import { renderOutputs, type JobOutput, type JobResult, type RenderInput } from './compose/render'

export { decodeImage, type DecodedImage, type DecodeOptions } from './decode/decode'
export {
  encodeImage,
  encodeVariation,
  flattenWarning,
  JPG_FLATTEN_WARNING,
  type EncodedImage,
  type EncodeOptions,
  type RgbaImage
} from './encode/encode'
export { makeCutout } from './compose/cutout'
export { Segmenter, MODEL_SIZE, type SegmentInput, type SegmenterOptions } from '../segment/mask/mask'
export { loadModel, clearModelCache, defaultModelDir, type ModelVariant } from '../segment/mask/model'
export {
  outputMetadata,
  renderOutputs,
  renderToFiles,
  type JobOutput,
  type JobResult,
  type RenderInput,
  type StoredOutput
} from './compose/render'

/**
 * A job's outputs with the cutout's uncertainty: 0 (sure) to 1 (check this); 0 when the input's own
 * alpha was kept (docs/review.md); and the second look it got (null: none).
 */
export type ProcessedJob<O = JobOutput> = JobResult<O> & { uncertainty: number; secondLook: SecondLook | null }

/** The job statuses the pipeline moves through (the queue maps them onto the job record). */
export type PipelineStage = 'segmenting' | 'pending_compose' | 'encoding'

export interface JobPlan<O = JobOutput> {
  format: OutputFormat
  params: JobParams
  maxPixels: number
  /**
   * Decodes the input. The engine passes its sandbox (untrusted bytes are never decoded on its
   * thread); without it the input is decoded in this process, for trusted inputs (benchmarks).
   */
  decode?: (bytes: Buffer) => Promise<DecodedImage>
  /**
   * Called once the input's size is known, before the model runs: the engine settles the job's
   * output cost there (`output-cost.ts`), and may refuse it.
   */
  admit?: (size: { width: number; height: number }) => void | Promise<void>
  /**
   * The job's hint decoded at the image's upright size (`hint.ts`), or null for none. The engine
   * decodes it in its sandbox, as it does the input.
   */
  hint?: (size: { width: number; height: number }) => Promise<HintPlane | null>
  /** Look-again boxes in the input's upright pixels, fitted to it at intake (`look-again.ts`). */
  regions?: readonly LookBox[]
  /**
   * Composes and encodes the outputs. The engine passes its sandbox, which also writes them to
   * their files, so that a large output never holds its thread (`render.ts`); without it, in
   * this process, the outputs' bytes kept in memory.
   */
  render?: (input: RenderInput) => Promise<JobResult<O>>
  /**
   * Converts sRGB colours into the input's own colour space (its profile is untrusted bytes):
   * for rendering in this process. @default in this process
   */
  toNative?: ToNative
  signal?: AbortSignal
  onStage?: (stage: PipelineStage) => void
}

/**
 * Runs one input through the pipeline and encodes every variation the plan asks for. Throws
 * `JobFailure` (with a reason) for anything the job should fail with, or the signal's reason
 * once aborted.
 */
export async function processJob(input: Buffer, deps: AlphaDeps, plan: JobPlan): Promise<ProcessedJob>
export async function processJob<O>(
  input: Buffer,
  deps: AlphaDeps,
  plan: JobPlan<O> & { render: (input: RenderInput) => Promise<JobResult<O>> }
): Promise<ProcessedJob<O>>
export async function processJob<O>(input: Buffer, deps: AlphaDeps, plan: JobPlan<O>): Promise<ProcessedJob<O> | ProcessedJob> {
  const { signal, params } = plan
  signal?.throwIfAborted()
  const image = plan.decode ? await plan.decode(input) : await decodeImage(input, { maxPixels: plan.maxPixels })
  await plan.admit?.({ width: image.width, height: image.height })

  signal?.throwIfAborted()
  plan.onStage?.('segmenting')
  const hint = plan.hint ? await plan.hint({ width: image.width, height: image.height }) : null
  signal?.throwIfAborted()
  const alpha = await computeAlpha(image, input, deps, params, signal, hint ?? undefined, plan.regions)

  signal?.throwIfAborted()
  plan.onStage?.('pending_compose')
  const request: RenderInput = {
    image,
    alpha: {
      alpha: alpha.alpha,
      foreground: alpha.foreground,
      source: alpha.source,
      warnings: alpha.warnings,
      secondLook: alpha.secondLook
    },
    params,
    format: plan.format
  }
  if (plan.render) {
    const result = await plan.render(request)
    signal?.throwIfAborted()
    plan.onStage?.('encoding')
    return { ...result, uncertainty: alpha.uncertainty, secondLook: alpha.secondLook }
  }
  const rendered = await renderOutputs(request, { toNative: plan.toNative, signal, onEncoding: () => plan.onStage?.('encoding') })
  return { ...rendered, uncertainty: alpha.uncertainty, secondLook: alpha.secondLook }
}
