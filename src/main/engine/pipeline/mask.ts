/**
 * The mask step: IS-Net run with onnxruntime-node on one long-lived session.
 *
 * The model takes a fixed [1, 3, 1024, 1024] float32 input and gives a [1, 1, 1024, 1024]
 * foreground probability. Both resizes are typed-array resamplers (`resample.ts`) that write the
 * float planes directly. Inference dominates the cost (~2.5 s on 2 cores) and
 * runs in a worker thread (see `segment-worker.ts`), one run at a time: callers may decode,
 * preprocess and encode other images, and the process keeps answering, while a run is under way.
 */
import { createRequire } from 'node:module'
import os from 'node:os'
import { Worker } from 'node:worker_threads'
import { JobFailure } from '../errors'
import { clearModelCache, loadModel, type ModelVariant } from './model'
import { resizeGrey, resizeToPlanes } from './resample'
import { SEGMENT_WORKER_SOURCE } from './segment-worker'

/** The model's fixed input side. Other sizes fail inside the graph. */
export const MODEL_SIZE = 1024

/**
 * Input normalisation: value = pixel / NORM_DIVISOR − 0.5 for each RGB plane.
 * IMG.LY feeds (p − 128) / 256, rembg's isnet p / 255 − 0.5. Against rembg's `isnet-general-use`
 * cutout of corpus `anime-girl-1` (alpha ≥ 128), /256 gave IoU 0.98661 and /255 0.98644 (mean
 * |Δalpha| 0.667 vs 0.671): a hair apart; we keep /256, which is also what this model's
 * distributor feeds it.
 */
const NORM_DIVISOR = 256

export interface SegmentInput {
  data: Buffer
  width: number
  height: number
  channels: 3 | 4
}

export interface SegmenterOptions {
  variant?: ModelVariant
  /** Intra-op threads for the one session; defaults to every core the process may use. */
  threads?: number
  /** Folder laid out like the model package's `dist/` (tests). */
  modelDir?: string
  /** ONNX Runtime graph optimisation. @default 'all' (fastest here; 'extended' uses ~290 MB less) */
  graphOptimizationLevel?: 'disabled' | 'basic' | 'extended' | 'all'
  /** Extra ONNX Runtime session options, over the defaults (benchmarks and experiments). */
  sessionOptions?: Record<string, unknown>
}

/** Messages to the worker (see `segment-worker.ts`). */
type WorkerRequest =
  | { type: 'init'; id: number; model: Uint8Array; options: Record<string, unknown> }
  | { type: 'run'; id: number; inputName: string; outputName: string; input: Float32Array; dims: number[] }
  | { type: 'close'; id: number }

/** A request before the bookkeeping gives it an id (`Omit` applied to each member of the union). */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never
type WorkerRequestBody = WithoutId<WorkerRequest>

/** Messages from the worker. */
type WorkerReply =
  | { type: 'ready'; id: number; inputNames: string[]; outputNames: string[] }
  | { type: 'result'; id: number; dataType: string; dims: number[]; mask: Uint8Array; input: Float32Array; ms: number }
  | { type: 'closed'; id: number }
  | { type: 'error'; id: number; message: string }

interface Pending {
  resolve: (reply: WorkerReply) => void
  reject: (err: Error) => void
}

/** The worker thread and its request/reply bookkeeping. */
class SessionWorker {
  private readonly worker: Worker
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  /** Set once the worker has died; every later request fails with it. */
  private dead: JobFailure | null = null

  constructor() {
    const ortPath = createRequire(import.meta.url).resolve('onnxruntime-node')
    this.worker = new Worker(SEGMENT_WORKER_SOURCE, { eval: true, workerData: { ortPath } })
    // An idle segmenter must not keep the process alive; a request in flight does (`request`).
    this.worker.unref()
    this.worker.on('message', (reply: WorkerReply) => this.settle(reply))
    this.worker.on('error', (err) => this.die(`the segmentation worker crashed: ${err.message}`, err))
    this.worker.on('exit', (code) => this.die(`the segmentation worker exited (code ${code})`))
  }

  request(msg: WorkerRequestBody, transfer: ArrayBuffer[] = []): Promise<WorkerReply> {
    if (this.dead) return Promise.reject(this.dead)
    const id = this.nextId++
    return new Promise<WorkerReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      if (this.pending.size === 1) this.worker.ref()
      this.worker.postMessage({ ...msg, id }, transfer)
    })
  }

  async terminate(): Promise<void> {
    this.dead ??= new JobFailure('pipeline_error', 'the segmenter has been closed')
    await this.worker.terminate()
  }

  private settle(reply: WorkerReply): void {
    const p = this.pending.get(reply.id)
    if (!p) return
    this.pending.delete(reply.id)
    if (this.pending.size === 0) this.worker.unref()
    p.resolve(reply)
  }

  private die(message: string, cause?: unknown): void {
    this.dead ??= new JobFailure('pipeline_crashed', message, { cause })
    for (const p of this.pending.values()) p.reject(this.dead)
    this.pending.clear()
  }
}

/** What one model run gave: the 1024² mask and how long the session took over it. */
export interface ModelRun {
  /** 1 channel, 8-bit, MODEL_SIZE × MODEL_SIZE: the model's own output, quantised. */
  mask: Buffer
  /** Milliseconds inside `session.run` (pure inference, measured in the worker). */
  inferenceMs: number
}

/** Input planes kept for reuse: one being filled while another is in the worker. */
const INPUT_POOL_SIZE = 2

export class Segmenter {
  readonly variant: ModelVariant
  private worker: SessionWorker | null
  private readonly inputName: string
  private readonly outputName: string
  // Tail of the run queue: each run starts after the previous one settles.
  private queue: Promise<unknown> = Promise.resolve()
  /** 12 MB float planes handed back by the worker, refilled for the next runs. */
  private readonly inputPool: Float32Array[] = []

  private constructor(worker: SessionWorker, variant: ModelVariant, inputNames: string[], outputNames: string[]) {
    this.worker = worker
    this.variant = variant
    this.inputName = inputNames[0] ?? 'input'
    // The graph has 11 more outputs (side outputs, features); ask only for the final mask so
    // ORT neither copies nor keeps them.
    this.outputName = outputNames.includes('output') ? 'output' : (outputNames[0] ?? 'output')
  }

  /**
   * Assembles the model and starts its session in a worker thread. Fails with
   * `model_unavailable` when the model is missing, corrupt or not loadable.
   */
  static async create(opts: SegmenterOptions = {}): Promise<Segmenter> {
    const variant = opts.variant ?? 'medium'
    const threads = Math.max(1, Math.floor(opts.threads ?? os.availableParallelism()))
    const model = await ownModel(variant, opts.modelDir)
    const worker = new SessionWorker()
    let reply: WorkerReply
    try {
      // Transferred, not copied: ~90 MB less at the moment the session is built (this thread
      // keeps no copy; the session holds its own weights once built).
      reply = await worker.request(
        {
          type: 'init',
          model,
          options: {
            executionProviders: ['cpu'],
            intraOpNumThreads: threads,
            // One model run at a time: inter-op parallelism would only oversubscribe the cores.
            interOpNumThreads: 1,
            executionMode: 'sequential',
            // The arena keeps peak activations (~1.2 GB more RSS) for the process' life; without
            // it RSS stays near 1 GB at no measurable speed cost.
            enableCpuMemArena: false,
            // The memory pattern pre-plans one block for every activation of a run; without it
            // each tensor is allocated when made and freed when last used, which lowers the peak
            // of a run by ~300 MB (measured: VmHWM 1.45 → 1.17 GB) at no measurable speed cost.
            enableMemPattern: false,
            graphOptimizationLevel: opts.graphOptimizationLevel ?? 'all',
            ...(opts.sessionOptions ?? {})
          }
        },
        [model.buffer as ArrayBuffer]
      )
    } catch (cause) {
      await worker.terminate()
      throw new JobFailure('model_unavailable', `cannot start the ${variant} IS-Net model: ${errorText(cause)}`, { cause })
    }
    if (reply.type !== 'ready') {
      await worker.terminate()
      const detail = reply.type === 'error' ? reply.message : `unexpected reply ${reply.type}`
      throw new JobFailure('model_unavailable', `cannot load the ${variant} IS-Net model: ${detail}`)
    }
    return new Segmenter(worker, variant, reply.inputNames, reply.outputNames)
  }

  /**
   * A 1-channel 8-bit alpha mask (255 = subject) at the image's own width × height.
   * `signal` is checked before the run starts (a queued run may wait several seconds); a run
   * that has started finishes. Fails with `pipeline_crashed` if the worker died.
   */
  async segment(image: SegmentInput, signal?: AbortSignal): Promise<Buffer> {
    const { mask } = await this.segmentAtModelSize(image, signal)
    return upscaleMask(mask, image.width, image.height)
  }

  /**
   * The model's own mask, MODEL_SIZE × MODEL_SIZE (the image stretched to a square), before
   * any resizing: what the mask cache stores and the refine step starts from.
   */
  async segmentAtModelSize(image: SegmentInput, signal?: AbortSignal): Promise<ModelRun> {
    signal?.throwIfAborted()
    this.assertOpen()
    checkRaw(image.data, image.width, image.height, image.channels, 'segment input')

    // Preprocessing starts now and overlaps the run ahead, but the place in the queue is taken
    // at the call, so runs keep the order in which they were asked for.
    const input = toModelInput(image, this.inputPool.pop())
    input.catch(() => undefined) // observed below, or dropped when the run is aborted first
    return this.run(input, signal)
  }

  /** Ends the session and its worker after any queued runs have settled. Idempotent. */
  async close(): Promise<void> {
    const worker = this.worker
    if (!worker) return
    this.worker = null
    await this.queue
    await worker.request({ type: 'close' }).catch(() => undefined)
    await worker.terminate()
    this.inputPool.length = 0
  }

  private run(pending: Promise<Float32Array>, signal?: AbortSignal): Promise<ModelRun> {
    const result = this.queue.then(async () => {
      signal?.throwIfAborted()
      const input = await pending
      try {
        signal?.throwIfAborted()
      } catch (err) {
        this.recycle(input)
        throw err
      }
      const worker = this.assertOpen()
      const reply = await worker.request(
        {
          type: 'run',
          inputName: this.inputName,
          outputName: this.outputName,
          input,
          dims: [1, 3, MODEL_SIZE, MODEL_SIZE]
        },
        // 12 MB: hand it over rather than copy it; it comes back with the result.
        [input.buffer as ArrayBuffer]
      )
      if (reply.type === 'error') {
        throw new JobFailure('pipeline_error', `the segmentation model failed: ${reply.message}`)
      }
      if (reply.type !== 'result' || reply.dataType !== 'float32' || reply.mask.length !== MODEL_SIZE * MODEL_SIZE) {
        throw new JobFailure('pipeline_error', 'the segmentation model gave an output of an unexpected shape')
      }
      this.recycle(reply.input)
      return { mask: Buffer.from(reply.mask.buffer, reply.mask.byteOffset, reply.mask.byteLength), inferenceMs: reply.ms }
    })
    // Keep the queue going whatever this run's outcome.
    this.queue = result.catch(() => undefined)
    return result
  }

  private recycle(input: Float32Array): void {
    if (input.length === 3 * MODEL_SIZE * MODEL_SIZE && this.inputPool.length < INPUT_POOL_SIZE) this.inputPool.push(input)
  }

  private assertOpen(): SessionWorker {
    if (!this.worker) throw new JobFailure('pipeline_error', 'the segmenter has been closed')
    return this.worker
  }
}

/**
 * The assembled model bytes for this segmenter alone, to hand over to the worker. `loadModel`
 * caches the bytes it assembles; taking them out of the cache first means nothing else can be
 * holding the buffer when it is transferred (a concurrent create that got the same promise
 * finds it detached and assembles its own).
 */
async function ownModel(variant: ModelVariant, dir: string | undefined): Promise<Uint8Array> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const model = await loadModel(variant, { dir })
    clearModelCache()
    if (model.byteLength > 0) return model
  }
  throw new JobFailure('model_unavailable', `cannot assemble the ${variant} IS-Net model: its bytes were taken by another session`)
}

/**
 * RGB(A) pixels → the model's planar, normalised float32 input (into `reuse` when given):
 * stretched to 1024² (`fit: fill`, as the model was trained; the aspect ratio is restored when
 * the mask is resized back) with an antialiased bilinear filter, straight into the planes.
 */
async function toModelInput(image: SegmentInput, reuse?: Float32Array): Promise<Float32Array> {
  const input = reuse ?? new Float32Array(3 * MODEL_SIZE * MODEL_SIZE)
  resizeToPlanes(image.data, image.width, image.height, image.channels, MODEL_SIZE, MODEL_SIZE, input, 1 / NORM_DIVISOR, -0.5)
  return input
}

/** The model's 1024² 8-bit mask → the same mask at width × height. */
export async function upscaleMask(mask: Buffer, width: number, height: number): Promise<Buffer> {
  checkRaw(mask, MODEL_SIZE, MODEL_SIZE, 1, 'model mask')
  return resizeGrey(mask, MODEL_SIZE, MODEL_SIZE, width, height)
}

/** Every raw buffer is checked: a wrong channel count would silently scramble pixels. */
function checkRaw(
  data: Buffer,
  width: number,
  height: number,
  channels: number,
  what: string,
  wantWidth = width,
  wantHeight = height,
  wantChannels = channels
): void {
  if (
    !Number.isInteger(width) ||
    !Number.isInteger(height) ||
    width < 1 ||
    height < 1 ||
    width !== wantWidth ||
    height !== wantHeight ||
    channels !== wantChannels ||
    data.length !== width * height * channels
  ) {
    throw new JobFailure(
      'pipeline_error',
      `${what}: got ${width}×${height}×${channels} (${data.length} bytes), expected ${wantWidth}×${wantHeight}×${wantChannels}`
    )
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
