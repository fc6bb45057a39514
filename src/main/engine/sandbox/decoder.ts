/**
 * The engine's door to untrusted image bytes: every decode, intake probe and preview of an
 * input runs in a sandbox process (`pool.ts`), never on the engine's main thread; so does the
 * compose and encode of a job's outputs, whose cost grows with the output size a job asks for.
 *
 * Three pools, so that an upload's quick probe never waits behind a long decode of a running
 * job: `jobs` (one process per concurrent job), `interactive` (probes and previews) and
 * `renders` (compose and encode of a job's outputs, one per concurrent job, with a memory limit
 * sized for the outputs rather than for the input).
 */
import { asBuffer } from '../as-buffer'
import type { DecodedImage, ProbedImage } from '../pipeline/decode/decode'
import type { HintPlane } from '../pipeline/guide/hint'
import type { HintDecodeRequest } from '../pipeline/guide/hint-decode'
import type { NativeTarget } from '../pipeline/metadata/native-colour'
import { forRender, type JobResult, type RenderInput, type StoredOutput } from '../pipeline/compose/render'
import { decodeMemoryFor } from '../options'
import { SandboxPool } from './pool'
import { decodeSpec, findSandboxScript, renderSpec } from './specs'
import type { PreviewRequest } from './protocol'

export interface SandboxOptions {
  /** Largest width × height accepted. */
  maxPixels: number
  /** Jobs decoding at once. */
  concurrency: number
  /** A decode running longer is killed (`decode_timeout`). @default 60 s */
  decodeTimeoutMs?: number
  /** An intake probe or preview running longer is killed. @default 15 s */
  probeTimeoutMs?: number
  /** Resident memory a sandbox process may reach. @default 12 bytes per allowed pixel, at least 768 MB */
  memoryBytes?: number
  /** Resident memory a process composing and encoding outputs may reach. @default `RENDER_MEMORY_BYTES` (specs.ts) */
  renderMemoryBytes?: number
  /** Composing and encoding a job's outputs running longer is stopped (`pipeline_timeout`). @default 10 min */
  renderTimeoutMs?: number
  /** The built sandbox entry; found next to the engine's bundle by default. */
  script?: string
}

export class DecodeSandbox {
  private readonly jobs: SandboxPool
  private readonly interactive: SandboxPool
  /** Compose and encode: a pool of its own, with its own memory limit. */
  private readonly renders: SandboxPool
  private readonly decodeTimeoutMs: number
  private readonly probeTimeoutMs: number
  private readonly renderTimeoutMs: number

  constructor(private readonly opts: SandboxOptions) {
    const script = opts.script ?? findSandboxScript()
    const memoryBytes = opts.memoryBytes ?? decodeMemoryFor(opts.maxPixels)
    this.jobs = new SandboxPool({ ...decodeSpec(script, memoryBytes), size: Math.max(1, opts.concurrency) })
    this.interactive = new SandboxPool({ ...decodeSpec(script, memoryBytes), size: 1 })
    this.renders = new SandboxPool({
      ...renderSpec(script, opts.renderMemoryBytes),
      size: Math.max(1, opts.concurrency),
      task: 'making the outputs',
      timeoutReason: 'pipeline_timeout'
    })
    this.decodeTimeoutMs = opts.decodeTimeoutMs ?? 60_000
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 15_000
    this.renderTimeoutMs = opts.renderTimeoutMs ?? 10 * 60_000
  }

  /** Composes and encodes a job's outputs (`render.ts`) in a sandbox process, which writes them into `dir`. */
  render(input: RenderInput, dir: string, signal?: AbortSignal): Promise<JobResult<StoredOutput>> {
    return this.renders.run({ op: 'render', input: forRender(input), dir }, { timeoutMs: this.renderTimeoutMs, signal }) as Promise<
      JobResult<StoredOutput>
    >
  }

  async decode(bytes: Buffer, signal?: AbortSignal): Promise<DecodedImage> {
    const image = (await this.jobs.run(
      { op: 'decode', bytes, maxPixels: this.opts.maxPixels },
      { timeoutMs: this.decodeTimeoutMs, signal }
    )) as DecodedImage
    const native = image.native ? { ...image.native, data: asBuffer(image.native.data) } : null
    const metadata = image.metadata ? { ...image.metadata, icc: image.metadata.icc ? asBuffer(image.metadata.icc) : null } : undefined
    return { ...image, data: asBuffer(image.data), native, metadata }
  }

  /** A job's hint as one grey plane of the image's upright size (`hint-decode.ts`), in a job's sandbox. */
  async decodeHint(request: HintDecodeRequest, signal?: AbortSignal): Promise<HintPlane> {
    const plane = (await this.jobs.run({ op: 'decode-hint', request }, { timeoutMs: this.decodeTimeoutMs, signal })) as HintPlane
    return { ...plane, data: asBuffer(plane.data) }
  }

  /** sRGB RGBA into an input's own colour space and depth (`native-colour.ts`), in a job's sandbox. */
  async toNative(rgba: Buffer, width: number, height: number, target: NativeTarget, signal?: AbortSignal): Promise<Buffer> {
    const request = { op: 'to-native' as const, rgba, width, height, target }
    return asBuffer((await this.jobs.run(request, { timeoutMs: this.decodeTimeoutMs, signal })) as Uint8Array)
  }

  probe(bytes: Buffer): Promise<ProbedImage> {
    return this.interactive.run(
      { op: 'probe', bytes, maxPixels: this.opts.maxPixels },
      { timeoutMs: this.probeTimeoutMs }
    ) as Promise<ProbedImage>
  }

  async preview(request: PreviewRequest): Promise<Buffer> {
    return asBuffer(
      (await this.interactive.run(
        { op: 'preview', request, maxPixels: this.opts.maxPixels },
        { timeoutMs: this.probeTimeoutMs }
      )) as Uint8Array
    )
  }

  /**
   * One process of each pool started ahead of the first job (see `SandboxPool.prewarm`): the
   * render pool's too, or the first job's outputs wait ~0.4 s for a process to start.
   */
  prewarm(): void {
    this.jobs.prewarm()
    this.interactive.prewarm()
    this.renders.prewarm()
  }

  /** Why a pool cannot start processes now (`SandboxPool.startProblem`), one per pool that cannot; empty when all can. */
  startProblems(): string[] {
    return [this.jobs, this.interactive, this.renders].map((p) => p.startProblem()).filter((p) => p !== null)
  }

  /** Sandbox processes alive now. */
  pids(): number[] {
    return [...this.jobs.pids(), ...this.interactive.pids(), ...this.renders.pids()]
  }

  async close(): Promise<void> {
    await Promise.all([this.jobs.close(), this.interactive.close(), this.renders.close()])
  }
}
