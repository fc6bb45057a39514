/**
 * `npm run bench:pipeline -- [--corpus <dir>] [--compare] [--variant small|medium] [--limit N] [--repeat N]
 *                   [--chunk N] [--concurrency N] [--glibc-tunables <tunables>|off] [--session-options <json>]
 *                   [--refine edges|none|detail (default: the default, edges)]
 *                   [--pipeline-only]`
 *
 * The pipeline inside one process, chunk by chunk (what a user waits for end to end is
 * `npm run bench`, `speed.ts`), printed as JSON (never asserted):
 * - clipdesk: every image through the whole pipeline (read, decode, model, refine, compose,
 *   PNG encode) with `--concurrency` jobs in flight as the engine runs them (default 2), one
 *   inference at a time in the worker thread, the session as the engine sets it up.
 * - inference: the same images, the model alone on a session with ONNX Runtime's default
 *   options and an intra-op thread per CPU (nothing of the engine's settings), one after the
 *   other with nothing else running: the floor the pipeline is compared with (overhead %).
 * - imgly (`--compare`): the same images through `@imgly/background-removal-node` on the same
 *   model variant, one at a time (its `removeBackground` blocks its thread while the model runs).
 *
 * Each runs in its own child process (so each has its own peak RSS), all three kept alive and
 * fed the same chunks of images in turn: on a shared machine, load changes hit all of them
 * alike. Model loading and one warm-up image per process are outside the figures.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { CLIPPING_DEFAULTS, type JobParams } from '../src/shared/params-types'
import { resolveOptions } from '../src/main/engine/options'
import { decodeImage, processJob, Segmenter } from '../src/main/engine/pipeline'
import { DecodeSandbox } from '../src/main/engine/sandbox/decoder'
import type { MaskSource } from '../src/main/engine/segment/mask/types'
import { loadModel, type ModelVariant } from '../src/main/engine/segment/mask/model'
import { MODEL_SIZE } from '../src/main/engine/segment/mask/mask'
import { resizeToPlanes } from '../src/main/engine/segment/mask/resample'
import { availableParallelism } from 'node:os'
import ort from 'onnxruntime-node'
import { corpusDir, corpusFiles, loadAverage, machine, median, memory, mimeOf, options, positiveInt, ROOT, round, rssSampler } from './lib'

type Role = 'clipdesk' | 'inference' | 'imgly'
type Refine = JobParams['refine']
const REFINES: Refine[] = ['edges', 'none', 'detail']

interface ChunkReport {
  wallMs: number
  /** Per image: whole job (clipdesk), inference (inference), removeBackground (imgly). */
  perImageMs: number[]
  /** clipdesk only: the model's own time for each image, inside the pipeline. */
  inferenceMs: number[]
  rssMb: number | null
  peakMb: number
  /** CPU time of the whole process (all threads) over the chunk. */
  cpuMs: number
}

type FromChild = { type: 'ready' } | { type: 'chunk'; report: ChunkReport } | { type: 'error'; message: string }
type ToChild = { type: 'chunk'; files: string[] } | { type: 'exit' }

const MAX_PIXELS = 100_000_000
/** What bin/clipdesk.js sets (kept in step by hand: that file is plain JavaScript run before any bundle). */
const GLIBC_TUNABLES = 'glibc.malloc.mmap_threshold=33554432:glibc.malloc.hugetlb=1'

export async function main(args: string[]): Promise<number> {
  const opt = options(args)
  const role = opt.get('child') as Role | undefined
  const variant = (opt.get('variant') ?? resolveOptions({ dataDir: '' }).modelVariant) as ModelVariant
  if (variant !== 'small' && variant !== 'medium') throw new Error(`--variant must be small or medium, got ${variant}`)
  // Experiments: extra ONNX Runtime session options for our processes, as JSON.
  const sessionOptions = opt.get('session-options')
  if (sessionOptions) JSON.parse(sessionOptions)
  // The refine step the pipeline runs (`edges`, the default, against `none` shows its cost).
  const refine = (opt.get('refine') ?? CLIPPING_DEFAULTS.refine) as Refine
  if (!REFINES.includes(refine)) throw new Error(`--refine must be one of ${REFINES.join(', ')}, got ${refine}`)
  if (role) return runChild(role, variant, positiveInt(opt.get('concurrency'), 2, '--concurrency'), sessionOptions, refine)

  const dir = corpusDir(opt.get('corpus'))
  const files = corpusFiles(dir, opt.has('limit') ? positiveInt(opt.get('limit'), 0, '--limit') : undefined)
  const repeat = positiveInt(opt.get('repeat'), 1, '--repeat')
  const chunk = positiveInt(opt.get('chunk'), Math.min(7, files.length), '--chunk')
  const concurrency = positiveInt(opt.get('concurrency'), 2, '--concurrency')
  // `--pipeline-only`: no inference-only baseline (long memory runs, e.g. --repeat 15).
  const roles: Role[] = opt.has('pipeline-only')
    ? ['clipdesk']
    : opt.has('compare')
      ? ['clipdesk', 'inference', 'imgly']
      : ['clipdesk', 'inference']
  // glibc's allocator settings for the pipeline process, as `clipdesk` runs (bin/clipdesk.js);
  // `--glibc-tunables off` measures without. The floor and imgly run as shipped.
  const tunablesOption = opt.get('glibc-tunables') ?? GLIBC_TUNABLES
  const tunables = tunablesOption === 'off' ? undefined : tunablesOption
  const loadStart = loadAverage()

  const children = new Map<Role, Child>()
  for (const r of roles) {
    const env: Record<string, string> = tunables !== undefined && r === 'clipdesk' ? { GLIBC_TUNABLES: tunables } : {}
    children.set(r, await Child.start(r, variant, concurrency, files[0]!, sessionOptions, env, refine))
  }
  const reports = new Map<Role, ChunkReport[]>(roles.map((r) => [r, []]))
  for (let pass = 0; pass < repeat; pass++) {
    for (let i = 0; i < files.length; i += chunk) {
      const part = files.slice(i, i + chunk)
      for (const r of roles) reports.get(r)!.push(await children.get(r)!.chunk(part))
    }
  }
  for (const c of children.values()) c.exit()

  const runs = files.length * repeat
  const summary = (r: Role) => {
    const list = reports.get(r)!
    const totalMs = list.reduce((s, c) => s + c.wallMs, 0)
    const perImage = list.flatMap((c) => c.perImageMs)
    const rss = list.map((c) => c.rssMb).filter((v): v is number => v !== null)
    return {
      // Throughput: each chunk's wall time over its images, median over chunks.
      seconds_per_image_median: round(median(list.map((c) => c.wallMs / c.perImageMs.length)) / 1000),
      seconds_per_image_mean: round(totalMs / runs / 1000),
      total_seconds: round(totalMs / 1000, 2),
      // All threads of the process: the model's, the pipeline's, libvips'.
      cpu_seconds_per_image: round(list.reduce((s, c) => s + c.cpuMs, 0) / runs / 1000),
      ...(r === 'clipdesk'
        ? {
            job_latency_seconds_median: round(median(perImage) / 1000),
            inference_in_pipeline_seconds_median: round(median(list.flatMap((c) => c.inferenceMs)) / 1000)
          }
        : { one_image_seconds_median: round(median(perImage) / 1000) }),
      peak_rss_mb: Math.max(...list.map((c) => c.peakMb)),
      ...(rss.length > 0
        ? {
            rss_after_first_chunk_mb: rss[0],
            rss_after_last_chunk_mb: rss[rss.length - 1],
            rss_max_after_chunk_mb: Math.max(...rss),
            // RSS after up to 10 evenly spaced chunks: flat means no growth over the run.
            rss_trend_mb: Array.from(
              new Set(
                Array.from({ length: Math.min(10, rss.length) }, (_, k) =>
                  Math.round((k * (rss.length - 1)) / Math.max(1, Math.min(10, rss.length) - 1))
                )
              )
            ).map((i) => rss[i])
          }
        : {})
    }
  }
  const clipdesk = summary('clipdesk')
  const inference = roles.includes('inference') ? summary('inference') : null
  const out: Record<string, unknown> = {
    bench: 'pipeline',
    corpus: dir,
    images: files.length,
    repeat,
    runs,
    variant,
    refine,
    concurrency,
    chunk,
    ...(sessionOptions ? { session_options: JSON.parse(sessionOptions) } : {}),
    ...(tunables !== undefined ? { glibc_tunables: tunables } : {}),
    machine: { ...machine(), load_average_start: loadStart, load_average_end: loadAverage() },
    clipdesk,
    ...(inference
      ? {
          inference,
          // Over the whole run, and from the per-chunk medians (less sensitive to load bursts
          // from other processes on a shared machine).
          overhead_percent: round((clipdesk.total_seconds / inference.total_seconds - 1) * 100, 1),
          overhead_percent_from_medians: round((clipdesk.seconds_per_image_median / inference.seconds_per_image_median - 1) * 100, 1),
          // CPU the pipeline spends per image beyond the model's own, in % of the model's.
          extra_cpu_percent: round((clipdesk.cpu_seconds_per_image / inference.cpu_seconds_per_image - 1) * 100, 1)
        }
      : {})
  }
  if (opt.has('compare')) {
    const imgly = summary('imgly')
    out.imgly = imgly
    out.throughput_ratio = round(imgly.total_seconds / clipdesk.total_seconds, 2)
    out.throughput_ratio_from_medians = round(imgly.seconds_per_image_median / clipdesk.seconds_per_image_median, 2)
  }
  console.log(JSON.stringify(out, null, 2))
  return 0
}

/** One child process of the benchmark, driven chunk by chunk. */
class Child {
  private constructor(
    readonly role: Role,
    private readonly proc: ChildProcess
  ) {}

  static async start(
    role: Role,
    variant: ModelVariant,
    concurrency: number,
    warmUp: string,
    sessionOptions: string | undefined,
    env: Record<string, string>,
    refine: Refine
  ): Promise<Child> {
    const args = ['pipeline', '--child', role, '--variant', variant, '--concurrency', String(concurrency), '--refine', refine]
    if (sessionOptions) args.push('--session-options', sessionOptions)
    const proc = fork(join(ROOT, 'bench', 'run.mjs'), args, {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, ...env }
    })
    const child = new Child(role, proc)
    await child.next('ready')
    await child.chunk([warmUp])
    return child
  }

  async chunk(files: string[]): Promise<ChunkReport> {
    this.proc.send({ type: 'chunk', files } satisfies ToChild)
    const msg = await this.next('chunk')
    return (msg as Extract<FromChild, { type: 'chunk' }>).report
  }

  exit(): void {
    this.proc.send({ type: 'exit' } satisfies ToChild)
  }

  private next(type: FromChild['type']): Promise<FromChild> {
    return new Promise((resolve, reject) => {
      const onMessage = (msg: FromChild): void => {
        cleanup()
        if (msg.type === 'error') reject(new Error(`${this.role}: ${msg.message}`))
        else if (msg.type !== type) reject(new Error(`${this.role}: expected ${type}, got ${msg.type}`))
        else resolve(msg)
      }
      const onExit = (code: number | null): void => {
        cleanup()
        reject(new Error(`${this.role} exited (code ${code})`))
      }
      const cleanup = (): void => {
        this.proc.off('message', onMessage)
        this.proc.off('exit', onExit)
      }
      this.proc.on('message', onMessage)
      this.proc.on('exit', onExit)
    })
  }
}

/** A chunk runner of one role. */
type Runner = (files: string[]) => Promise<Omit<ChunkReport, 'rssMb' | 'peakMb' | 'cpuMs'>>

async function runChild(
  role: Role,
  variant: ModelVariant,
  concurrency: number,
  sessionOptions: string | undefined,
  refine: Refine
): Promise<number> {
  const send = (msg: FromChild): void => void process.send!(msg)
  const sampler = rssSampler()
  let run: Runner
  try {
    run =
      role === 'imgly'
        ? await imglyRunner(variant)
        : await clipdeskRunner(role, variant, concurrency, sessionOptions ? JSON.parse(sessionOptions) : undefined, refine)
  } catch (err) {
    send({ type: 'error', message: err instanceof Error ? err.message : String(err) })
    return 1
  }
  send({ type: 'ready' })
  await new Promise<void>((resolve) => {
    process.on('message', (msg: ToChild) => {
      if (msg.type === 'exit') return resolve()
      const cpu = process.cpuUsage()
      run(msg.files).then(
        (r) => {
          const mem = memory()
          const used = process.cpuUsage(cpu)
          const cpuMs = (used.user + used.system) / 1000
          send({ type: 'chunk', report: { ...r, rssMb: mem?.rssMb ?? null, peakMb: mem?.peakMb ?? sampler.peakMb(), cpuMs } })
        },
        (err: unknown) => send({ type: 'error', message: err instanceof Error ? err.message : String(err) })
      )
    })
  })
  sampler.stop()
  process.disconnect()
  // The segmenter's worker would keep an idle process alive: this child is done.
  process.exit(0)
}

async function clipdeskRunner(
  role: 'clipdesk' | 'inference',
  variant: ModelVariant,
  concurrency: number,
  sessionOptions: Record<string, unknown> | undefined,
  refine: Refine
): Promise<Runner> {
  if (role === 'inference') {
    // ONNX Runtime's defaults and a thread per CPU: nothing of the engine's session settings.
    const session = await ort.InferenceSession.create(await loadModel(variant), { intraOpNumThreads: availableParallelism() })
    return async (files) => {
      const perImageMs: number[] = []
      for (const file of files) {
        const image = await decodeImage(await readFile(file), { maxPixels: MAX_PIXELS })
        const input = new ort.Tensor('float32', await modelPlanes(image), [1, 3, MODEL_SIZE, MODEL_SIZE])
        const t = performance.now()
        await session.run({ input }, ['output'])
        perImageMs.push(performance.now() - t)
      }
      return { wallMs: perImageMs.reduce((s, v) => s + v, 0), perImageMs, inferenceMs: perImageMs }
    }
  }
  const segmenter = await Segmenter.create({ variant, sessionOptions })
  return async (files) => {
    const inferenceMs: number[] = []
    // The real segmenter, recording the model's own time of each run.
    const source: MaskSource = {
      variant,
      segment: (image, signal) => segmenter.segment(image, signal),
      segmentAtModelSize: async (image, signal) => {
        const run = await segmenter.segmentAtModelSize(image, signal)
        inferenceMs.push(run.inferenceMs)
        return run
      }
    }
    // As the engine does, the input is decoded in a sandbox process (engine/sandbox): its cost
    // (moving the pixels back) is part of the pipeline's figure.
    const sandbox = new DecodeSandbox({ maxPixels: MAX_PIXELS, concurrency })
    const perImageMs: number[] = []
    let next = 0
    const started = performance.now()
    // As the engine does: `concurrency` jobs at once, the model serialised inside the segmenter.
    const lane = async (): Promise<void> => {
      while (next < files.length) {
        const file = files[next++]!
        const t = performance.now()
        const input = await readFile(file)
        await processJob(
          input,
          { segmenter: source },
          {
            format: 'png',
            params: { ...CLIPPING_DEFAULTS, refine },
            maxPixels: MAX_PIXELS,
            decode: (bytes) => sandbox.decode(bytes),
            toNative: (rgba, w, h, target) => sandbox.toNative(rgba, w, h, target)
          }
        )
        perImageMs.push(performance.now() - t)
      }
    }
    await Promise.all(Array.from({ length: concurrency }, lane))
    const wallMs = performance.now() - started
    await sandbox.close()
    return { wallMs, perImageMs, inferenceMs }
  }
}

/** The built-in model's input planes (p/256 − 0.5), stretched to 1024² with the engine's resampler. */
async function modelPlanes(image: { data: Buffer; width: number; height: number; channels: number }): Promise<Float32Array> {
  const planes = new Float32Array(3 * MODEL_SIZE * MODEL_SIZE)
  resizeToPlanes(image.data, image.width, image.height, image.channels as 3 | 4, MODEL_SIZE, MODEL_SIZE, planes, 1 / 256, -0.5)
  return planes
}

async function imglyRunner(variant: ModelVariant): Promise<Runner> {
  // Required here, not imported at the top: only this child loads it (and its own copy of the
  // ORT bindings), so the other processes' memory figures do not include it.
  const require = createRequire(import.meta.url)
  const imgly = require('@imgly/background-removal-node') as {
    removeBackground(image: Blob, config: Record<string, unknown>): Promise<Blob>
  }
  // Its dist/ folder (models and resources.json), as the file:// URL it wants.
  const dist = join(require.resolve('@imgly/background-removal-node'), '..')
  const config = { publicPath: `${pathToFileURL(dist).href}/`, model: variant, output: { format: 'image/png' } }
  return async (files) => {
    const perImageMs: number[] = []
    const started = performance.now()
    for (const file of files) {
      const t = performance.now()
      const bytes = await readFile(file)
      const out = await imgly.removeBackground(new Blob([new Uint8Array(bytes)], { type: mimeOf(file) }), config)
      await out.arrayBuffer()
      perImageMs.push(performance.now() - t)
    }
    return { wallMs: performance.now() - started, perImageMs, inferenceMs: [] }
  }
}
