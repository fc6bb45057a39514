/**
 * How a sandbox process is started (`pool.ts` runs them): the fork itself, its options, and the
 * processes started ahead of any pool (`startSandboxAhead`).
 *
 * A start can fail in two ways, and both end in `ready` rejecting, never in a throw out of here:
 * Node throws from `fork` for some errors (ENOMEM, E2BIG, …), and for the ones a busy machine
 * gives (EMFILE, ENFILE, EAGAIN, ENOENT, EACCES) it emits `'error'` alone, with no `'exit'` ever
 * after: the child has no pid and never ran.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { JobFailure } from '../errors'
import type { ToParent } from './protocol'

/** What a sandbox process is started with: the pool's script, memory limit, priority and environment. */
export interface ForkSpec {
  /** The sandbox entry script (built `decode-child.js`). */
  script: string
  /** Resident memory a process may reach before it is killed. */
  memoryBytes: number
  /**
   * A nice value (1–19) the processes lower themselves to, so that their work yields the CPU to
   * the engine's thread. @default none: normal priority
   */
  nice?: number
  /** Extra environment for the processes. */
  env?: Record<string, string>
}

export interface Started {
  child: ChildProcess
  /** Settles when the process says it is ready (or fails to start). */
  ready: Promise<void>
}

/** A start that failed: `fork` threw, or the child never got a pid (`'error'` alone). */
export class SandboxStartFailure extends JobFailure {
  constructor(cause: unknown) {
    super('pipeline_crashed', `a sandbox process could not be started (${startErrorText(cause)})`, { cause })
    this.name = 'SandboxStartFailure'
  }
}

/** What the errors a start meets on a busy machine mean, in words. */
const START_ERRORS: Record<string, string> = {
  EMFILE: 'too many open files in this process',
  ENFILE: 'too many open files in the system',
  EAGAIN: 'too many processes, or resources temporarily unavailable',
  ENOMEM: 'not enough memory'
}

/** "EMFILE: too many open files in this process" for a spawn error, else its message. */
export function startErrorText(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code
  if (typeof code === 'string') return START_ERRORS[code] ? `${code}: ${START_ERRORS[code]}` : code
  return err instanceof Error ? err.message : String(err)
}

const START_TIMEOUT_MS = 30_000

/** Starts a sandbox process. Never throws: a failed start is a `Started` whose `ready` rejects with `SandboxStartFailure`. */
export function forkSandbox(spec: ForkSpec, forkFn: typeof fork = fork): Started {
  const { execArgv, env } = forkOptions(spec)
  let child: ChildProcess
  try {
    child = forkFn(spec.script, [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv, env })
  } catch (err) {
    return failedStart(err)
  }
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
    child.once('error', (err) => {
      // An error of a child that runs (a failed send or kill) is followed by its 'exit'.
      if (child.pid !== undefined) return
      clearTimeout(timer)
      reject(new SandboxStartFailure(err))
    })
  })
  ready.catch(() => {}) // observed by the first request
  return { child, ready }
}

/** `fork` threw: a stand-in child that never runs, emits `'error'` once (as a spawn error would), and whose `ready` rejects. */
function failedStart(err: unknown): Started {
  const child = Object.assign(new EventEmitter(), {
    pid: undefined,
    exitCode: null,
    signalCode: null,
    channel: undefined,
    connected: false,
    kill: () => false,
    ref: () => undefined,
    unref: () => undefined,
    send: () => false
  }) as unknown as ChildProcess
  process.nextTick(() => child.emit('error', err))
  const ready = Promise.reject(new SandboxStartFailure(err))
  ready.catch(() => {})
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
 * and never keeps this process alive. One that could not start is dropped (its pool starts its own).
 */
export function startSandboxAhead(spec: ForkSpec): void {
  const started = forkSandbox(spec)
  if (started.child.pid === undefined) return
  const entry = { ...started, key: specKey(spec), timer: setTimeout(() => started.child.kill('SIGKILL'), AHEAD_UNUSED_MS) }
  entry.timer.unref()
  started.child.unref()
  started.child.channel?.unref()
  started.child.on('error', () => undefined) // a failed kill or send: its 'exit' follows
  started.child.once('exit', () => {
    const at = ahead.indexOf(entry)
    if (at >= 0) ahead.splice(at, 1)
  })
  ahead.push(entry)
}

/** A process started ahead for exactly `spec`, still running, or null. */
export function takeStarted(spec: ForkSpec): Started | null {
  const at = ahead.findIndex((e) => e.key === specKey(spec) && e.child.exitCode === null && e.child.signalCode === null)
  if (at < 0) return null
  const [entry] = ahead.splice(at, 1)
  clearTimeout(entry!.timer)
  return { child: entry!.child, ready: entry!.ready }
}
