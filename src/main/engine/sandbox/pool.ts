/**
 * A small pool of sandbox processes that decode untrusted images for the engine.
 *
 * Why processes and not worker threads: libvips decodes on its own native threads and
 * allocates outside the V8 heap, so a worker's `resourceLimits` bound neither its memory nor
 * its time, and terminating a worker does not stop a render already under way. A process can
 * be killed whole, and its memory is its own: a bomb or an endless filter ends with the
 * process, the engine fails that job with a clear reason, and the next request gets a fresh
 * process.
 *
 * Each process serves one request at a time; requests wait in order. A process is killed on
 * timeout, on abort, or when its resident memory passes the limit (watched from outside on
 * Linux, and by the process itself everywhere); one that grew large is replaced after its
 * request, and idle ones exit after a while, so nothing stays resident for nothing.
 *
 * A process that cannot be started (the process out of file descriptors, EMFILE; the system's
 * table full, ENFILE; too many processes, EAGAIN; `fork` throwing) frees its place at once: the
 * request it was for waits for one more try and then fails with the start's error, and the pool
 * starts no process for a while (250 ms, doubling up to 10 s), then tries again, also with no
 * request waiting, so that it is known to work again. Meanwhile `startProblem()` says why
 * (`/api/v1/health` answers 503 `degraded` with it), until a process starts.
 */
import type { ChildProcess, fork } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import type { FailureReason } from '../../../shared/errors'
import { JobFailure } from '../errors'
import { forkSandbox, SandboxStartFailure, startErrorText, takeStarted, type ForkSpec } from './fork'
import { MEMORY_EXIT_CODE, type SandboxRequest, type ToChild, type ToParent } from './protocol'

export type { ForkSpec } from './fork'

export interface PoolOptions extends ForkSpec {
  /** Processes at most. */
  size: number
  /** An idle process exits after this long. @default 30 s */
  idleMs?: number
  /** A process that ended a request above this resident size is replaced. @default memoryBytes / 3 */
  recycleBytes?: number
  /** What the processes do, in failure messages. @default 'decoding the image' */
  task?: string
  /** The failure reason of a request past its time limit. @default 'decode_timeout' */
  timeoutReason?: FailureReason
  /** Starts the processes (tests: a `fork` that throws). @default node:child_process's fork */
  forkFn?: typeof fork
}

export interface RunOptions {
  timeoutMs: number
  signal?: AbortSignal
}

interface Waiting {
  request: SandboxRequest
  opts: RunOptions
  resolve(value: unknown): void
  reject(err: unknown): void
  /** Processes that could not be started for this request; at `START_TRIES` it fails. */
  failedStarts: number
}

const WATCH_MS = 100
/** A request fails after this many processes could not be started for it. */
const START_TRIES = 2
/** The wait after a failed start: doubled after each one that follows, up to the most. */
const RETRY_FIRST_MS = 250
const RETRY_MOST_MS = 10_000

/** One sandbox process and the request it is serving. */
class Slot {
  job: (Waiting & { id: number; timer: NodeJS.Timeout; watch: NodeJS.Timeout | null; abort: () => void }) | null = null
  idleTimer: NodeJS.Timeout | null = null
  /** Why the pool killed the process, reported to the request it was serving. */
  killedFor: JobFailure | Error | null = null
  exited = false
  /** Said it is ready: a process that ends before is a failed start. */
  started = false
  /** Settles when the process has exited, or never ran. */
  readonly gone: Promise<void>
  markGone: () => void = () => undefined

  constructor(
    readonly child: ChildProcess,
    readonly ready: Promise<void>
  ) {
    this.gone = new Promise((resolve) => {
      this.markGone = resolve
    })
  }

  kill(reason: JobFailure | Error): void {
    this.killedFor ??= reason
    if (!this.exited) this.child.kill('SIGKILL')
  }
}

export class SandboxPool {
  private readonly slots = new Set<Slot>()
  private readonly waiting: Waiting[] = []
  private nextId = 1
  private closed = false
  /** Starts that failed in a row; no new process before `retryAt`. */
  private startFailures = 0
  private retryAt = 0
  private retryTimer: NodeJS.Timeout | null = null
  private lastStartError = ''

  private readonly task: string

  constructor(private readonly opts: PoolOptions) {
    this.task = opts.task ?? 'decoding the image'
  }

  /** Runs one request in a sandbox process; rejects with `JobFailure` or the signal's reason. */
  run(request: SandboxRequest, opts: RunOptions): Promise<unknown> {
    if (this.closed) return Promise.reject(new JobFailure('pipeline_crashed', 'the decoder is shut down'))
    opts.signal?.throwIfAborted()
    return new Promise((resolve, reject) => {
      this.waiting.push({ request, opts, resolve, reject, failedStarts: 0 })
      this.dispatch()
    })
  }

  /**
   * Starts a process now, idle, so that the first request does not wait for one to start (a
   * process loads Node and libvips: ~0.3–0.5 s). It exits after the idle time like any other.
   */
  prewarm(): void {
    if (this.closed || this.slots.size > 0 || Date.now() < this.retryAt) return
    this.idle(this.spawn())
  }

  /** Processes running now (for tests and diagnostics). */
  pids(): number[] {
    return [...this.slots].filter((s) => !s.exited && s.child.pid !== undefined).map((s) => s.child.pid ?? 0)
  }

  /** Why the pool cannot start processes now (the last start failed, and none has started since), else null. */
  startProblem(): string | null {
    if (this.startFailures === 0) return null
    return `a process for ${this.task} could not be started (${this.lastStartError}); ${this.startFailures} failed start${this.startFailures === 1 ? '' : 's'} in a row`
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.retryTimer) clearTimeout(this.retryTimer)
    this.retryTimer = null
    for (const w of this.waiting.splice(0)) w.reject(new JobFailure('pipeline_crashed', 'the decoder is shut down'))
    // An idle process is unref'd: ref it again, or the loop could end before its exit is seen.
    for (const s of this.slots) s.child.ref()
    const exits = [...this.slots].map((s) => s.gone)
    for (const s of this.slots) s.kill(new JobFailure('pipeline_crashed', 'the decoder is shut down'))
    await Promise.all(exits)
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      // A process killed (idle, recycled) but whose exit is not seen yet takes no request: it would fail with the kill's reason.
      let slot = [...this.slots].find((s) => !s.job && !s.exited && !s.killedFor)
      if (!slot) {
        if (this.slots.size >= this.opts.size) return
        if (Date.now() < this.retryAt) {
          this.armRetry()
          return
        }
        slot = this.spawn()
      }
      const next = this.waiting.shift()!
      if (next.opts.signal?.aborted) {
        next.reject(next.opts.signal.reason)
        continue
      }
      this.start(slot, next)
    }
  }

  private spawn(): Slot {
    const { child, ready } = takeStarted(this.opts) ?? forkSandbox(this.opts, this.opts.forkFn)
    const slot = new Slot(child, ready)
    this.slots.add(slot)
    child.on('message', (m: ToParent) => this.onMessage(slot, m))
    // A child with no pid never ran: no 'exit' will follow its 'error'.
    child.on('error', (err) => (child.pid === undefined ? this.onStartFailed(slot, err) : slot.kill(err)))
    child.on('exit', (code, signal) => this.onExit(slot, code, signal))
    ready.then(
      () => {
        slot.started = true
        this.startFailures = 0
      },
      () => {} // the exit or error handler deals with it
    )
    return slot
  }

  private start(slot: Slot, next: Waiting): void {
    if (slot.idleTimer) clearTimeout(slot.idleTimer)
    slot.idleTimer = null
    slot.child.ref()
    slot.child.channel?.ref()
    const id = this.nextId++
    const timer = setTimeout(() => {
      slot.kill(
        new JobFailure(
          this.opts.timeoutReason ?? 'decode_timeout',
          `${this.task} took longer than ${formatSeconds(next.opts.timeoutMs)} and was stopped`
        )
      )
    }, next.opts.timeoutMs)
    const abort = (): void => slot.kill(next.opts.signal!.reason as Error)
    next.opts.signal?.addEventListener('abort', abort, { once: true })
    slot.job = { ...next, id, timer, watch: this.watchMemory(slot), abort }
    slot.ready.then(
      () => {
        if (slot.job?.id === id && !slot.exited) slot.child.send({ id, request: next.request } satisfies ToChild)
      },
      () => {} // the exit or error handler fails the request
    )
  }

  /** Linux: the process's resident size from outside, which works even while it is stuck in native code. */
  private watchMemory(slot: Slot): NodeJS.Timeout | null {
    const pid = slot.child.pid
    if (process.platform !== 'linux' || !pid) return null
    return setInterval(() => {
      residentBytes(pid).then(
        (rss) => {
          if (rss > this.opts.memoryBytes) slot.kill(memoryFailure(this.task, this.opts.memoryBytes))
        },
        () => {}
      )
    }, WATCH_MS)
  }

  private finish(slot: Slot): Waiting | null {
    const job = slot.job
    if (!job) return null
    clearTimeout(job.timer)
    if (job.watch) clearInterval(job.watch)
    job.opts.signal?.removeEventListener('abort', job.abort)
    slot.job = null
    const { request, opts, resolve, reject, failedStarts } = job
    return { request, opts, resolve, reject, failedStarts }
  }

  private onMessage(slot: Slot, m: ToParent): void {
    if (m.type === 'ready' || m.id !== slot.job?.id) return
    const job = this.finish(slot)!
    if (m.type === 'result') job.resolve(m.value)
    else job.reject(new JobFailure(m.reason, m.message))
    if (m.rss > (this.opts.recycleBytes ?? this.opts.memoryBytes / 3)) {
      // glibc keeps a large decode's memory: a fresh process is cheaper than holding it.
      slot.kill(new Error('recycled'))
    } else {
      this.idle(slot)
    }
    this.dispatch()
  }

  private idle(slot: Slot): void {
    slot.child.unref()
    slot.child.channel?.unref()
    slot.idleTimer = setTimeout(() => slot.kill(new Error('idle')), this.opts.idleMs ?? 30_000)
    slot.idleTimer.unref()
  }

  /** The slot is gone: its place free, its timers stopped; the request it held, if any. */
  private release(slot: Slot): Waiting | null {
    slot.exited = true
    if (slot.idleTimer) clearTimeout(slot.idleTimer)
    this.slots.delete(slot)
    slot.markGone()
    return this.finish(slot)
  }

  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.exited) return
    const job = this.release(slot)
    if (!slot.started && !slot.killedFor && !this.closed) {
      // It ran but ended before it was ready (it could not load: out of descriptors or memory).
      this.startFailed(job, new SandboxStartFailure(new Error(`it exited while starting, ${signal ?? `exit code ${code}`}`)))
      return
    }
    if (job) {
      const why =
        slot.killedFor ??
        (code === MEMORY_EXIT_CODE
          ? memoryFailure(this.task, this.opts.memoryBytes)
          : new JobFailure('pipeline_crashed', `the decoder process stopped unexpectedly (${signal ?? `exit code ${code}`})`))
      job.reject(why)
    }
    if (!this.closed) this.dispatch()
  }

  /** The child never ran (`fork` threw, or spawn failed: EMFILE, ENFILE, EAGAIN, ENOENT…). */
  private onStartFailed(slot: Slot, err: unknown): void {
    if (slot.exited) return
    const job = this.release(slot)
    if (this.closed) {
      job?.reject(new JobFailure('pipeline_crashed', 'the decoder is shut down'))
      return
    }
    this.startFailed(job, err instanceof SandboxStartFailure ? err : new SandboxStartFailure(err))
  }

  /**
   * A start failed: no new process for a while, and the request it was for is tried once more
   * (first in line) or fails. With no process left at all, every request waiting has waited for
   * this start too: each counts it, so that none waits for ever while nothing can start.
   */
  private startFailed(job: Waiting | null, failure: SandboxStartFailure): void {
    this.startFailures++
    this.lastStartError = startErrorText(failure.cause)
    this.retryAt = Date.now() + Math.min(RETRY_MOST_MS, RETRY_FIRST_MS * 2 ** (this.startFailures - 1))
    const charged = job ? [job] : []
    if (this.slots.size === 0) charged.push(...this.waiting.splice(0))
    const kept: Waiting[] = []
    for (const w of charged) {
      w.failedStarts++
      if (w.failedStarts >= START_TRIES) w.reject(failure)
      else kept.push(w)
    }
    this.waiting.unshift(...kept)
    this.armRetry()
  }

  /**
   * Tries again at `retryAt`: the waiting requests, or with none a process started idle, so that
   * the pool is known to work again (and `/health` says so) without waiting for a request.
   */
  private armRetry(): void {
    if (this.closed) return
    if (!this.retryTimer) {
      this.retryTimer = setTimeout(
        () => {
          this.retryTimer = null
          if (this.closed) return
          if (this.waiting.length > 0) this.dispatch()
          else if (this.startFailures > 0 && this.slots.size < this.opts.size) this.idle(this.spawn())
        },
        Math.max(0, this.retryAt - Date.now())
      )
    }
    // Requests waiting keep the process alive until they are served; a lone retry does not.
    if (this.waiting.length > 0) this.retryTimer.ref()
    else this.retryTimer.unref()
  }
}

function memoryFailure(task: string, limit: number): JobFailure {
  return new JobFailure('image_too_large', `${task} needed more than ${Math.round(limit / 2 ** 20)} MB of memory and was stopped`)
}

/** VmRSS of a process, from /proc (Linux). */
async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'latin1')
  const at = status.indexOf('VmRSS:')
  if (at < 0) return 0
  return Number.parseInt(status.slice(at + 6, status.indexOf('\n', at)).trim(), 10) * 1024
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`
}
