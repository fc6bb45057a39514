/**
 * The refine step on its own thread, at a lower priority than the model's.
 *
 * Why: the model's two ONNX Runtime threads hold both cores of a small machine, and its
 * parallel sections wait at each barrier for their slowest thread. A refine (tens of ms of
 * typed-array work per photo) on the engine's main thread preempts one of them as an equal and
 * stalls both: on the pipeline benchmark the refine cost ~2.9 points of overhead over pure
 * inference, for ~1.3 points of CPU. On its own thread, niced on Linux (where the nice value is
 * per thread), it runs in the model's idle moments and yields to it otherwise; the main thread
 * also stays free for the API and IPC. (On macOS and Windows lowering the priority would apply
 * to the whole process, the model included: there the thread runs at normal priority.)
 *
 * The thread is `out/main/refine-thread.js`, an entry of the main build; it starts when the engine
 * warms up (or on the first refine) and stops after `IDLE_STOP_MS` without one, so an idle
 * engine holds no second heap. Jobs keep to that one thread. A refine asked for on the spare
 * thread (`spare`) runs on a second one, started the same way (not on a one-core machine): the
 * touch-up editor refines a stroke on the whole photo and on a look-again box's crop at once, and
 * with one thread the second waits for the first (a stroke after a box would cost both refines
 * instead of the longer one). Jobs do not: measured on the speed bench, a second thread for
 * jobs cost `clipdesk process` about 6 % (another heap and its code compiled, and refines
 * contending with the model) for nothing a user waits on.
 * Where it is not built (unit tests of the sources) the refine runs in-thread, with the same
 * result. So it does while a thread cannot start (it failed before it ever answered: the process
 * out of file descriptors, EMFILE, or a build that cannot load here): its refines, and those
 * after it for a while (1 s, doubling after each start that fails in a row, up to a minute),
 * after which a new thread is tried; one that answers ends the outage. A thread that dies later
 * fails only the refines it held, and the next refine starts a new one.
 */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { asBuffer } from '../../as-buffer'
import { findBuiltScript } from '../../built-script'
import { JobFailure } from '../../errors'
import type { Region } from '../../segment/mask/region'
import { refineEdges, type RgbaInput } from './refine'
import type { MaskPlane } from '../../segment/mask/types'

export const REFINE_THREAD_SCRIPT = 'refine-thread.js'
/** How long the thread outlives its last refine. */
const IDLE_STOP_MS = 15_000

/** To the thread: one refine. */
export interface RefineRequest {
  id: number
  image: { data: Uint8Array; width: number; height: number }
  mask: { data: Uint8Array; width: number; height: number }
  /** `RefineOptions.within`. */
  within?: Region
}

/** To the thread: a refine of a made-up photo whose result is dropped (`prewarmRefineThread`). */
export interface RefineWarmUp {
  id: number
  warm: true
}

/** From the thread. */
export type RefineReply = { id: number; alpha: Uint8Array; foreground: Uint8Array } | { id: number; error: string }

export interface RefinedPixels {
  alpha: Buffer
  foreground: Buffer
}

interface Pending {
  resolve: (r: RefinedPixels) => void
  reject: (err: Error) => void
  /** The same refine in this thread (when the refine thread could not start at all). */
  inThread: () => Promise<RefinedPixels>
}

/** At most this many refine threads: two where the machine has two cores or more. */
export const MAX_REFINE_THREADS = Math.max(1, Math.min(2, availableParallelism()))

/** The jobs' refine thread (slot 0) and the spare one (slot 1), each started when first asked for. */
const slots: Array<RefineThread | null> = [null, null]
/** Not built: refines run in-thread for good. */
let unavailable = false
/** Threads that failed to start in a row; none is started again before `retryAt`. */
let failedStarts = 0
let retryAt = 0
const RETRY_FIRST_MS = 1000
const RETRY_MOST_MS = 60_000
/** The built entry, looked up once (undefined: not yet). */
let builtScript: string | null | undefined

/**
 * `refineEdges` with the default options (and `within`, the pixels the caller reads), on the
 * refine thread when there is one. The image's pixels are copied to the thread (the caller keeps
 * its own).
 */
export async function refineOffThread(
  image: RgbaInput,
  mask: MaskPlane,
  signal?: AbortSignal,
  spare = false,
  within?: Region
): Promise<RefinedPixels> {
  signal?.throwIfAborted()
  const t = refineThread(spare)
  if (!t) return refineEdges(image, mask, { within }, signal)
  return t.refine(image, mask, signal, within)
}

/**
 * Starts the refine thread ahead of the first job, and has it refine a small made-up photo at
 * its low priority: the first real refine then finds the thread up and its code compiled
 * (measured on a 0.7 MP photo: 0.55–0.6 s cold, of which 0.17 s the thread's start, 0.1 s warm).
 * A thread that gets no refine stops after the idle time as usual.
 */
export function prewarmRefineThread(): void {
  refineThread()?.warm()
}

/**
 * The jobs' refine thread, or for a `spare` refine the spare one (the jobs' on a one-core
 * machine), started if it does not run; null where none can run (the refine then runs in-thread).
 */
function refineThread(spare = false): RefineThread | null {
  if (unavailable) return null
  const slot = spare && MAX_REFINE_THREADS > 1 ? 1 : 0
  const running = slots[slot]
  if (running) return running
  if (Date.now() < retryAt) return null
  if (builtScript === undefined) builtScript = findBuiltScript(REFINE_THREAD_SCRIPT)
  const script = process.env.CLIPDESK_REFINE_SCRIPT ?? builtScript
  if (!script) {
    unavailable = true
    return null
  }
  let started: RefineThread
  try {
    started = new RefineThread(script, (outcome) => {
      if (slots[slot] === started) slots[slot] = null
      if (outcome === 'answered') failedStarts = 0
      if (outcome === 'failed-to-start') startFailed()
    })
  } catch (err) {
    startFailed(err)
    return null
  }
  slots[slot] = started
  return started
}

/** A thread could not start: refines run in-thread until `retryAt`. */
function startFailed(err?: unknown): void {
  failedStarts++
  retryAt = Date.now() + Math.min(RETRY_MOST_MS, RETRY_FIRST_MS * 2 ** (failedStarts - 1))
  if (err !== undefined && failedStarts === 1) {
    console.warn(
      `clipdesk: the refine thread could not start (${err instanceof Error ? err.message : String(err)}); the refine step runs on the main thread until it can`
    )
  }
}

/** Stops the refine threads now, if any run (tests; the engine lets them stop when idle). */
export async function stopRefineThread(): Promise<void> {
  const running = slots.filter((t) => t !== null)
  slots.fill(null)
  await Promise.all(running.map((t) => t.stop()))
}

/** How many refine threads run now (tests). */
export function refineThreadCount(): number {
  return slots.filter((t) => t !== null).length
}

class RefineThread {
  private readonly worker: Worker
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private idleTimer: NodeJS.Timeout | null = null
  private gone = false
  /** Whether it has ever answered: one that dies before that cannot run here. */
  private answered = false

  constructor(
    script: string,
    /** Called once when it ends: after it answered, or having failed before it ever did, or stopped by us before that. */
    private readonly onGone: (outcome: 'answered' | 'failed-to-start' | 'stopped') => void
  ) {
    this.worker = new Worker(script)
    this.worker.on('message', (reply: RefineReply) => this.settle(reply))
    this.worker.on('error', (err) => this.die(`the refine thread crashed: ${err.message}`))
    this.worker.on('exit', (code) => this.die(`the refine thread exited (code ${code})`))
    // After the listeners: adding a 'message' listener refs the worker again.
    this.worker.unref()
    this.armIdle()
  }

  refine(image: RgbaInput, mask: MaskPlane, signal?: AbortSignal, within?: Region): Promise<RefinedPixels> {
    const id = this.nextId++
    return new Promise<RefinedPixels>((resolve, reject) => {
      const onAbort = (): void => {
        // The thread finishes its work regardless (tens of ms); its answer is then dropped.
        this.pending.delete(id)
        reject(signal!.reason as Error)
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.pending.set(id, {
        inThread: () => refineEdges(image, mask, { within }, signal),
        resolve: (r) => {
          signal?.removeEventListener('abort', onAbort)
          resolve(r)
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort)
          reject(err)
        }
      })
      if (this.idleTimer) clearTimeout(this.idleTimer)
      this.idleTimer = null
      this.worker.ref()
      const request: RefineRequest = {
        id,
        image: { data: image.data, width: image.width, height: image.height },
        mask: { data: mask.data, width: mask.width, height: mask.height },
        ...(within ? { within } : {})
      }
      this.worker.postMessage(request)
    })
  }

  /** A warm-up refine: answered like any other (so the thread counts as usable), its result dropped. */
  warm(): void {
    const request: RefineWarmUp = { id: this.nextId++, warm: true }
    this.worker.postMessage(request)
  }

  async stop(): Promise<void> {
    this.gone = true
    if (this.idleTimer) clearTimeout(this.idleTimer)
    await this.worker.terminate()
  }

  private settle(reply: RefineReply): void {
    this.answered = true
    const p = this.pending.get(reply.id)
    this.pending.delete(reply.id)
    if (this.pending.size === 0) {
      this.worker.unref()
      this.armIdle()
    }
    if (!p) return
    if ('error' in reply) p.reject(new JobFailure('pipeline_error', `refining the edges failed: ${reply.error}`))
    else p.resolve({ alpha: asBuffer(reply.alpha), foreground: asBuffer(reply.foreground) })
  }

  private armIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.idleTimer = setTimeout(() => {
      if (this.pending.size > 0) return
      this.onGone(this.answered ? 'answered' : 'stopped')
      void this.stop()
    }, IDLE_STOP_MS)
    this.idleTimer.unref()
  }

  private die(message: string): void {
    if (this.gone && this.pending.size === 0) return
    const stopped = this.gone
    this.gone = true
    if (this.idleTimer) clearTimeout(this.idleTimer)
    // Never answered and not stopped by us: it could not start (out of descriptors, a broken build).
    const unusable = !this.answered && !stopped
    if (unusable && failedStarts === 0)
      console.warn(`clipdesk: ${message}; the refine step runs on the main thread until it can start again`)
    this.onGone(unusable ? 'failed-to-start' : this.answered ? 'answered' : 'stopped')
    const held = [...this.pending.values()]
    this.pending.clear()
    const failure = new JobFailure('pipeline_crashed', message)
    for (const p of held) {
      if (unusable) p.inThread().then(p.resolve, p.reject)
      else p.reject(failure)
    }
  }
}
