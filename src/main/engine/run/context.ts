import type { DataPaths } from '../paths'
import type { ResolvedEngineOptions } from '../options'
import type { Segmenter } from '../segment/mask/mask'
import type { DecodedImage } from '../pipeline/decode/decode'
import type { HintPlane } from '../pipeline/guide/hint'
import type { HintDecodeRequest } from '../pipeline/guide/hint-decode'
import type { NativeTarget } from '../pipeline/metadata/native-colour'
import type { JobResult, RenderInput, StoredOutput } from '../pipeline/compose/render'
import type { Db } from '../store/db'
import type { JobStore } from '../store/jobs'
import type { KeyStore } from '../store/keys'
import type { MaskCache } from '../store/mask-cache'
import type { JobParamsStore } from '../store/job-params'
import type { PresetStore } from '../store/presets'

/** What running a job needs from the engine: its stores, its model pool and its decode sandbox. */
export interface RunContext {
  db: Db
  jobs: JobStore
  keys: KeyStore
  presets: PresetStore
  jobParams: JobParamsStore
  paths: DataPaths
  options: ResolvedEngineOptions
  /** The model a job without `model=` runs now (the registry's default). */
  defaultModel(): string
  /** The session of a registry model; give it back with `releaseSegmenter`. */
  segmenter(model: string): Promise<Segmenter>
  releaseSegmenter(segmenter: Segmenter): void
  /** Decodes an input in the sandbox (never on the engine's thread). */
  decode(bytes: Buffer, signal: AbortSignal): Promise<DecodedImage>
  /** Decodes a job's hint in the sandbox (`pipeline/decode/hint-decode.ts`). */
  decodeHint(request: HintDecodeRequest, signal: AbortSignal): Promise<HintPlane>
  /** Converts sRGB colours into an input's own profile, in the sandbox (the profile is untrusted). */
  toNative(rgba: Buffer, width: number, height: number, target: NativeTarget, signal: AbortSignal): Promise<Buffer>
  /** Composes and encodes the outputs in the sandbox (never on the engine's thread), which writes them into `dir`. */
  render(input: RenderInput, dir: string, signal: AbortSignal): Promise<JobResult<StoredOutput>>
  /** Model masks by input content + model; absent: every job runs the model. */
  maskCache?: MaskCache
  /** Called after every move of a job, for push events. */
  changed(jobId: string): void
  /** Running estimate of how long the model step takes, for progress within `segmenting`. */
  timing: { segmentingMs: number }
}
