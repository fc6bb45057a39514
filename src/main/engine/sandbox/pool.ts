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
 */
import { fork, type ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import type { FailureReason } from '../../../shared/errors'
import { JobFailure } from '../errors'
import { MEMORY_EXIT_CODE, type SandboxRequest, type ToChild, type ToParent } from './protocol'

export interface PoolOptions {
  /** The sandbox entry script (built `decode-child.js`). */
  script: string
  /** Processes at most. */
  size: number
  /** Resident memory a process may reach before it is killed. */
  memoryBytes: number
  /** An idle process exits after this long. @default 30 s */
  idleMs?: number
  /** A process that ended a request above this resident size is replaced. @default memoryBytes / 3 */
  recycleBytes?: number
  /** Extra environment for the processes. */
  env?: Record<string, string>
  /** What the processes do, in failure messages. @default 'decoding the image' */
  task?: string
  /** The failure reason of a request past its time limit. @default 'decode_timeout' */
  timeoutReason?: FailureReason
  /**
   * A nice value (1–19) the processes lower themselves to, so that their work yields the CPU to
   * the engine's thread. @default none: normal priority
   */
  nice?: number
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
}

const WATCH_MS = 100
const START_TIMEOUT_MS = 30_000

/** One sandbox process and the request it is serving. */
class Slot {
  job: (Waiting & { id: number; timer: NodeJS.Timeout; watch: NodeJS.Timeout | null; abort: () => void }) | null = null
  idleTimer: NodeJS.Timeout | null = null
  /** Why the pool killed the process, reported to the request it was serving. */
  killedFor: JobFailure | Error | null = null
  exited = false

  constructor(
    readonly child: ChildProcess,
    readonly ready: Promise<void>
  ) {}

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

  private readonly task: string

  constructor(private readonly opts: PoolOptions) {
    this.task = opts.task ?? 'decoding the image'
  }

  /** Runs one request in a sandbox process; rejects with `JobFailure` or the signal's reason. */
  run(request: SandboxRequest, opts: RunOptions): Promise<unknown> {
    if (this.closed) return Promise.reject(new JobFailure('pipeline_crashed', 'the decoder is shut down'))
    opts.signal?.throwIfAborted()
    return new Promise((resolve, reject) => {
      this.waiting.push({ request, opts, resolve, reject })
      this.dispatch()
    })
  }

  /**
   * Starts a process now, idle, so that the first request does not wait for one to start (a
   * process loads Node and libvips: ~0.3–0.5 s). It exits after the idle time like any other.
   */
  prewarm(): void {
    if (this.closed || this.slots.size > 0) return
    this.idle(this.spawn())
  }

  /** Processes running now (for tests and diagnostics). */
  pids(): number[] {
    return [...this.slots].filter((s) => !s.exited).map((s) => s.child.pid ?? 0)
  }

  async close(): Promise<void> {
    this.closed = true
    for (const w of this.waiting.splice(0)) w.reject(new JobFailure('pipeline_crashed', 'the decoder is shut down'))
    // An idle process is unref'd: ref it again, or the loop could end before its exit is seen.
    for (const s of this.slots) s.child.ref()
    const exits = [...this.slots].map((s) => (s.exited ? Promise.resolve() : new Promise<void>((r) => s.child.once('exit', () => r()))))
    for (const s of this.slots) s.kill(new JobFailure('pipeline_crashed', 'the decoder is shut down'))
    await Promise.all(exits)
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      // A process killed (idle, recycled) but whose exit is not seen yet takes no request: it would fail with the kill's reason.
      let slot = [...this.slots].find((s) => !s.job && !s.exited && !s.killedFor)
      if (!slot) {
        if (this.slots.size >= this.opts.size) return
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
    const { child, ready } = takeStarted(this.opts) ?? forkSandbox(this.opts)
    const slot = new Slot(child, ready)
    this.slots.add(slot)
    child.on('message', (m: ToParent) => this.onMessage(slot, m))
    child.on('error', (err) => slot.kill(err))
    child.on('exit', (code, signal) => this.onExit(slot, code, signal))
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
      () => {} // the exit handler fails the request
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
    return job
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

  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    slot.exited = true
    if (slot.idleTimer) clearTimeout(slot.idleTimer)
    this.slots.delete(slot)
    const job = this.finish(slot)
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
}

/** What a sandbox process is started with: the pool's script, memory limit, priority and environment. */
export type ForkSpec = Pick<PoolOptions, 'script' | 'memoryBytes' | 'nice' | 'env'>

interface Started {
  child: ChildProcess
  /** Settles when the process says it is ready (or fails to start). */
  ready: Promise<void>
}

function forkSandbox(spec: ForkSpec): Started {
  const { execArgv, env } = forkOptions(spec)
  const child = fork(spec.script, [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv, env })
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new JobFailure('pipeline_crashed', 'the decoder process did not start')), START_TIMEOUT_MS)
    child.once('message', (m: ToParent) => {
      clearTimeout(timer)
      if (m.type === 'ready') resolve()
      else reject(new JobFailure('pipeline_crashed', 'the decoder process started wrongly'))
    })
    child.once('exit', () => {
      clearTimeout(timer)
      reject(new JobFailure('pipeline_crashed', 'the decoder process exited while starting'))
    })
  })
  ready.catch(() => {}) // observed by the first request
  return { child, ready }
}

function forkOptions(spec: ForkSpec): { execArgv: string[]; env: NodeJS.ProcessEnv } {
  return {
    execArgv: process.versions.electron ? [] : [`--max-old-space-size=${Math.max(256, Math.round(spec.memoryBytes / 2 ** 20 / 2))}`],
    env: {
      ...process.env,
      ...spec.env,
      CLIPDESK_SANDBOX_MEMORY_BYTES: String(spec.memoryBytes),
      ...(spec.nice ? { CLIPDESK_SANDBOX_NICE: String(spec.nice) } : {}),
      // Inside Electron, process.execPath is the app: run it as plain Node.
      ...(process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {})
    }
  }
}

/** Processes started ahead of any pool (`startSandboxAhead`), each waiting for a pool that forks exactly what it is. */
const ahead: Array<Started & { key: string; timer: NodeJS.Timeout }> = []
/** A process started ahead and not taken by then exits. */
const AHEAD_UNUSED_MS = 30_000

const specKey = (spec: ForkSpec): string => JSON.stringify([spec.script, spec.memoryBytes, spec.nice ?? 0, spec.env ?? {}])

/**
 * Starts a sandbox process before the engine exists (`clipdesk process` and `serve`, from
 * `cli.ts`): Node, sharp and the pipeline's code load (~0.2–0.3 s of CPU each) while the command
 * loads its own modules, rather than after, when the first photo's probe and decode wait for
 * them. The first pool that would fork the same process takes it; unused, it exits after 30 s
 * and never keeps this process alive.
 */
export function startSandboxAhead(spec: ForkSpec): void {
  const started = forkSandbox(spec)
  const entry = { ...started, key: specKey(spec), timer: setTimeout(() => started.child.kill('SIGKILL'), AHEAD_UNUSED_MS) }
  entry.timer.unref()
  started.child.unref()
  started.child.channel?.unref()
  started.child.once('exit', () => {
    const at = ahead.indexOf(entry)
    if (at >= 0) ahead.splice(at, 1)
  })
  ahead.push(entry)
}

function takeStarted(spec: ForkSpec): Started | null {
  const at = ahead.findIndex((e) => e.key === specKey(spec) && e.child.exitCode === null && e.child.signalCode === null)
  if (at < 0) return null
  const [entry] = ahead.splice(at, 1)
  clearTimeout(entry!.timer)
  return { child: entry!.child, ready: entry!.ready }
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
