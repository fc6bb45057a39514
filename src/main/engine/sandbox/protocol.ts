/**
 * Messages between the engine and a decode sandbox process (`child.ts`), sent over the
 * child's IPC channel with structured-clone serialisation (Buffers travel as bytes).
 */
import type { FailureReason } from '../../../shared/errors'
import type { DecodedImage, ProbedImage } from '../pipeline/decode/decode'
import type { HintPlane } from '../pipeline/guide/hint'
import type { HintDecodeRequest } from '../pipeline/guide/hint-decode'
import type { NativeTarget } from '../pipeline/metadata/native-colour'
import type { JobFraming } from '../store/jobs'
import type { JobResult, RenderInput, StoredOutput } from '../pipeline/compose/render'

export interface PreviewRequest {
  /** File to render: an upload, a stored input or a result. */
  path: string
  /** Long edge of the rendering, in pixels (never enlarged). */
  edge: number
  quality: number
  /**
   * Place the image as a job framed its subject (the original of a cropping preset's result):
   * `source` of the image drawn at `target` on a transparent `canvas`. Absent: the image whole.
   */
  frame?: JobFraming
}

export type SandboxRequest =
  | { op: 'decode'; bytes: Buffer; maxPixels: number }
  | { op: 'probe'; bytes: Buffer; maxPixels: number }
  /** A job's hint, decoded to one grey plane of the image's upright size (`hint-decode.ts`). */
  | { op: 'decode-hint'; request: HintDecodeRequest }
  | { op: 'preview'; request: PreviewRequest; maxPixels: number }
  /** sRGB colours into an input's own profile (which lcms must read: untrusted bytes). */
  | { op: 'to-native'; rgba: Buffer; width: number; height: number; target: NativeTarget }
  /** Compose and encode a job's outputs into files in `dir` (`render.ts`): large outputs must not hold the engine's thread. */
  | { op: 'render'; input: RenderInput; dir: string }

export interface SandboxResults {
  decode: DecodedImage
  probe: ProbedImage
  'decode-hint': HintPlane
  preview: Buffer
  'to-native': Buffer
  render: JobResult<StoredOutput>
}

export type SandboxOp = SandboxRequest['op']

/** Parent → child. */
export type ToChild = { id: number; request: SandboxRequest }

/** Child → parent. `rss`: the child's resident memory after the request, to decide on recycling. */
export type ToParent =
  | { type: 'ready' }
  | { type: 'result'; id: number; value: unknown; rss: number }
  | { type: 'failure'; id: number; reason: FailureReason; message: string; rss: number }

/** Exit code of a child that stopped itself for using more memory than allowed. */
export const MEMORY_EXIT_CODE = 86
