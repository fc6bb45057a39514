/**
 * The mask step: a segmentation model run with onnxruntime-node on one long-lived session.
 *
 * The built-in IS-Net takes a fixed [1, 3, 1024, 1024] float32 input and gives a
 * [1, 1, 1024, 1024] foreground probability; a registry model says its own input size,
 * normalisation and output kind in its descriptor (`../models/descriptors.ts`). Both resizes
 * are typed-array resamplers (`resample.ts`) that write the float planes directly. Inference
 * dominates the cost and runs in a worker thread (see `segment-worker.ts`), one run at a time:
 * callers may decode, preprocess and encode other images, and the process keeps answering,
 * while a run is under way. How the session is set up: `../models/session-factory.ts`.
 */
import { getHeapStatistics } from 'node:v8'
import type { ActualDevice, Device, SessionSettings } from '../../../../shared/models'
import { JobFailure } from '../../errors'
import { ISNET_BUILTIN, type ModelDescriptor } from '../session/descriptors'
import { resolveDevice } from '../session/devices'
import { machineCacheDir } from '../session/machine'
import { IoMismatch, openSession } from '../session/session-factory'
import { checkModelIo } from '../session/validate'
import { builtinModelId, takeModel, type ModelVariant } from './model'
import { resizeGrey, resizeToPlanes } from './resample'
import { releaseScratch } from '../../scratch'
import { collectGarbage } from '../../gc'
import type { SessionWorker } from '../session/session-worker'

/** The model's fixed input side. Other sizes fail inside the graph. */
export const MODEL_SIZE = 1024

/**
 * Input normalisation: value = pixel / 256 − 0.5 for each RGB plane.
 * IMG.LY feeds (p − 128) / 256, rembg's isnet p / 255 − 0.5. Against rembg's `isnet-general-use`
 * cutout of corpus `anime-girl-1` (alpha ≥ 128), /256 gave IoU 0.98661 and /255 0.98644 (mean
 * |Δalpha| 0.667 vs 0.671): a hair apart; we keep /256, which is also what this model's
 * distributor feeds it.
 */

export interface SegmentInput {
  data: Buffer
  width: number
  height: number
  channels: 3 | 4
}

/** A registry model to run instead of a built-in variant. */
export interface SegmenterModel {
  /** Names the weights and their preprocessing in the mask cache and the machine's caches. */
  key: string
  /**
   * The ONNX file's bytes, read (and checked) when a session needs them: not at all when the
   * machine's optimised copy serves. Each call gives a fresh buffer (it is handed to the worker).
   */
  load: () => Promise<Uint8Array>
  descriptor: ModelDescriptor
}

export interface SegmenterOptions {
  variant?: ModelVariant
  /** A registry model; when given, `variant` and `modelDir` are ignored. */
  model?: SegmenterModel
  /** Execution provider. A provider that fails to load falls back to the CPU. @default 'cpu' */
  device?: Device
  /** Intra-op threads for the one session; by default chosen for this machine (`models/tuning.ts`). */
  threads?: number
  /**
   * The machine cache (optimised model, measured settings); null: none (each load optimises
   * the graph again). @default machineCacheDir()
   */
  cacheDir?: string | null
  /** Folder laid out like the model package's `dist/` (tests). */
  modelDir?: string
  /** ONNX Runtime graph optimisation. @default 'all' (fastest here; 'extended' uses ~290 MB less) */
  graphOptimizationLevel?: 'disabled' | 'basic' | 'extended' | 'all'
  /** Extra ONNX Runtime session options, over the defaults (benchmarks and experiments). */
  sessionOptions?: Record<string, unknown>
}

/** What one model run gave: the model-size mask and how long the session took over it. */
export interface ModelRun {
  /** 1 channel, 8-bit, width × height: the model's own output, quantised. */
  mask: Buffer
  /** The model's output size; absent (older mask sources): MODEL_SIZE × MODEL_SIZE. */
  width?: number
  height?: number
  /** Milliseconds inside `session.run` (pure inference, measured in the worker). */
  inferenceMs: number
}

/** Input planes kept for reuse: one being filled while another is in the worker. */
const INPUT_POOL_SIZE = 2

/** What a session was started with, besides its worker. */
interface SessionSetup {
  variant: ModelVariant | undefined
  modelKey: string
  descriptor: ModelDescriptor
  device: ActualDevice
  deviceWarning: string | null
  settings: SessionSettings
  builtAhead: boolean
  inputName: string
  outputName: string
}

export class Segmenter {
  /** The built-in variant, or undefined for a registry model. */
  readonly variant: ModelVariant | undefined
  /** Names the weights and preprocessing in the mask cache. */
  readonly modelKey: string
  readonly descriptor: ModelDescriptor
  /** The device that runs the model (after any fallback). */
  readonly device: ActualDevice
  /** Why the asked-for device is not the one running, else null. */
  readonly deviceWarning: string | null
  /** How the session was set up on this machine (threads, arena, optimised copy, backend). */
  readonly settings: SessionSettings
  /** Whether the session was built ahead by the worker started with the command (`prestartSessionWorker`). */
  readonly builtAhead: boolean
  private worker: SessionWorker | null
  private readonly inputName: string
  private readonly outputName: string
  private readonly size: [number, number]
  // Tail of the run queue: each run starts after the previous one settles.
  private queue: Promise<unknown> = Promise.resolve()
  /** 12 MB float planes handed back by the worker, refilled for the next runs. */
  private readonly inputPool: Float32Array[] = []

  private constructor(worker: SessionWorker, setup: SessionSetup) {
    this.worker = worker
    this.variant = setup.variant
    this.modelKey = setup.modelKey
    this.descriptor = setup.descriptor
    this.device = setup.device
    this.deviceWarning = setup.deviceWarning
    this.settings = setup.settings
    this.builtAhead = setup.builtAhead
    // IS-Net has 11 more outputs (side outputs, features); only the one the descriptor names is
    // asked for, so ORT neither copies nor keeps the others.
    this.inputName = setup.inputName
    this.outputName = setup.outputName
    this.size = setup.descriptor.input.size
  }

  /**
   * Starts the model's session in a worker thread with this machine's settings
   * (`models/session-factory.ts`): on `device` when its provider loads, else on the CPU (with
   * `deviceWarning` saying why). Fails with `model_unavailable` when the model is missing,
   * corrupt, not loadable or does not match its descriptor (the message says which shape was
   * expected and which the graph has).
   */
  static async create(opts: SegmenterOptions = {}): Promise<Segmenter> {
    const variant = opts.model ? undefined : (opts.variant ?? 'medium')
    const descriptor: ModelDescriptor = opts.model?.descriptor ?? { family: 'builtin', ...ISNET_BUILTIN }
    const label = variant ? `${variant} IS-Net model` : `model ${opts.model!.key}`
    const custom =
      opts.graphOptimizationLevel || opts.sessionOptions
        ? { ...(opts.graphOptimizationLevel ? { graphOptimizationLevel: opts.graphOptimizationLevel } : {}), ...opts.sessionOptions }
        : undefined
    let opened
    try {
      const modelId = opts.model ? opts.model.key : builtinModelId(variant!, { dir: opts.modelDir })
      opened = await openSession({
        label,
        device: resolveDevice(opts.device ?? 'cpu'),
        modelId,
        modelBytes: () => (opts.model ? opts.model.load() : takeModel(variant!, opts.modelDir)),
        threads: opts.threads === undefined ? undefined : Math.max(1, Math.floor(opts.threads)),
        custom,
        cacheDir: opts.cacheDir === undefined ? machineCacheDir() : opts.cacheDir,
        io: (reply) => ({
          ...checkModelIo(descriptor, reply.inputs, reply.outputs),
          dims: [1, 3, descriptor.input.size[1], descriptor.input.size[0]]
        })
      })
    } catch (cause) {
      if (cause instanceof IoMismatch)
        throw new JobFailure('model_unavailable', `the ${label} does not match its descriptor: ${cause.message}`)
      if (cause instanceof JobFailure) throw cause
      throw new JobFailure('model_unavailable', `cannot start the ${label}: ${errorText(cause)}`, { cause })
    }
    let io
    try {
      io = checkModelIo(descriptor, opened.reply.inputs, opened.reply.outputs)
    } catch (err) {
      await opened.worker.terminate()
      throw new JobFailure('model_unavailable', `the ${label} does not match its descriptor: ${errorText(err)}`)
    }
    return new Segmenter(opened.worker, {
      variant,
      modelKey: opts.model?.key ?? `isnet-${variant}`,
      descriptor,
      device: opened.device,
      deviceWarning: opened.deviceWarning,
      settings: opened.settings,
      builtAhead: opened.reply.prepared,
      ...io
    })
  }

  /**
   * A 1-channel 8-bit alpha mask (255 = subject) at the image's own width × height.
   * `signal` is checked before the run starts (a queued run may wait several seconds); a run
   * that has started finishes. Fails with `pipeline_crashed` if the worker died.
   */
  async segment(image: SegmentInput, signal?: AbortSignal): Promise<Buffer> {
    const run = await this.segmentAtModelSize(image, signal)
    return upscaleMask(run.mask, image.width, image.height, run.width, run.height)
  }

  /**
   * The model's own mask at the model's size (the image stretched to it), before
   * any resizing: what the mask cache stores and the refine step starts from.
   */
  async segmentAtModelSize(image: SegmentInput, signal?: AbortSignal): Promise<ModelRun> {
    signal?.throwIfAborted()
    this.assertOpen()
    checkRaw(image.data, image.width, image.height, image.channels, 'segment input')

    // Preprocessing starts now and overlaps the run ahead, but the place in the queue is taken
    // at the call, so runs keep the order in which they were asked for.
    const input = toModelInput(image, this.descriptor, this.inputPool.pop())
    input.catch(() => undefined) // observed below, or dropped when the run is aborted first
    return this.run(input, signal)
  }

  /** Ends the session and its worker after any queued runs have settled. Idempotent. */
  async close(): Promise<void> {
    const worker = this.worker
    if (!worker) return
    this.worker = null
    await this.queue
    await worker.close()
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
      const replied = worker.request(
        {
          type: 'run',
          inputName: this.inputName,
          outputName: this.outputName,
          input,
          dims: [1, 3, this.size[1], this.size[0]],
          logits: this.descriptor.output.kind === 'logits'
        },
        // 12 MB: hand it over rather than copy it; it comes back with the result.
        [input.buffer as ArrayBuffer]
      )
      // Posted first: the collection then overlaps the run instead of holding it back.
      freeDuringRun()
      const reply = await replied
      if (reply.type === 'error') {
        throw new JobFailure('pipeline_error', `the segmentation model failed: ${reply.message}`)
      }
      const [w, h] = this.size
      const dims = reply.type === 'result' ? reply.dims : []
      const [outH, outW] = [dims[dims.length - 2], dims[dims.length - 1]]
      if (reply.type !== 'result' || reply.dataType !== 'float32' || outW !== w || outH !== h || reply.mask.length !== w * h) {
        throw new JobFailure(
          'pipeline_error',
          `the segmentation model gave an output of an unexpected shape: expected [1, 1, ${h}, ${w}], got [${dims.join(', ')}]`
        )
      }
      this.recycle(reply.input)
      return {
        mask: Buffer.from(reply.mask.buffer, reply.mask.byteOffset, reply.mask.byteLength),
        width: w,
        height: h,
        inferenceMs: reply.ms
      }
    })
    // Keep the queue going whatever this run's outcome.
    this.queue = result.catch(() => undefined)
    return result
  }

  private recycle(input: Float32Array): void {
    if (input.length === 3 * this.size[0] * this.size[1] && this.inputPool.length < INPUT_POOL_SIZE) this.inputPool.push(input)
  }

  private assertOpen(): SessionWorker {
    if (!this.worker) throw new JobFailure('pipeline_error', 'the segmenter has been closed')
    return this.worker
  }
}

/**
 * RGB(A) pixels → the model's planar, normalised float32 input (into `reuse` when it has the
 * right length): stretched to the model's size (`fit: fill`, as these models are trained; the
 * aspect ratio is restored when the mask is resized back) with an antialiased bilinear filter,
 * straight into the planes. One pass when the normalisation is the same for every plane (the
 * built-in IS-Net), else a second pass per plane for mean/std and channel order.
 */
async function toModelInput(image: SegmentInput, d: ModelDescriptor, reuse?: Float32Array): Promise<Float32Array> {
  const [w, h] = d.input.size
  const n = w * h
  const input = reuse && reuse.length === 3 * n ? reuse : new Float32Array(3 * n)
  const { mean, std, scale, channelOrder } = d.input
  const uniform = channelOrder === 'rgb' && mean.every((m) => m === mean[0]) && std.every((s) => s === std[0])
  if (uniform) {
    resizeToPlanes(image.data, image.width, image.height, image.channels, w, h, input, 1 / (scale * std[0]), -mean[0] / std[0])
    return input
  }
  resizeToPlanes(image.data, image.width, image.height, image.channels, w, h, input, 1 / scale, 0)
  if (channelOrder === 'bgr') {
    const r = input.slice(0, n)
    input.copyWithin(0, 2 * n, 3 * n)
    input.set(r, 2 * n)
  }
  for (let c = 0; c < 3; c++) {
    const m = mean[c]!
    const k = 1 / std[c]!
    for (let i = c * n, end = i + n; i < end; i++) input[i] = (input[i]! - m) * k
  }
  return input
}

/** The model's 8-bit mask (srcWidth × srcHeight, 1024² for IS-Net) → the same mask at width × height. */
export async function upscaleMask(
  mask: Buffer,
  width: number,
  height: number,
  srcWidth = MODEL_SIZE,
  srcHeight = MODEL_SIZE
): Promise<Buffer> {
  checkRaw(mask, srcWidth, srcHeight, 1, 'model mask')
  return resizeGrey(mask, srcWidth, srcHeight, width, height)
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

/**
 * A run's activations (~0.6 GB for IS-Net at 1024²) are the process's peak; the buffers of the
 * photos before (a 24 MP photo leaves several 100 MB ones) must not sit on top of them. Dropping
 * the references is not enough: V8 frees an ArrayBuffer only when it collects it, which may be
 * seconds later. So as a run starts, if V8 holds more than `COLLECT_OVER_BYTES` outside its heap,
 * this thread's scratch arena is dropped and a collection runs (the refine step's arena is
 * there only where it ran in-thread: `refine-thread.ts`). Below that it is not worth its time:
 * with photos of a megapixel or so little is held there, and a collection at every run cost
 * time for no lower peak (figures in docs/pipeline.md, "Memory"). It runs just
 * after the run is posted, not before: the activations build up over the run's first layers, so
 * the memory is back before the peak, and the worker does not wait for it.
 */
const COLLECT_OVER_BYTES = 128 * 1024 * 1024

function freeDuringRun(): void {
  if (getHeapStatistics().external_memory < COLLECT_OVER_BYTES) return
  releaseScratch()
  collectGarbage()
}
