/**
 * The worker thread that owns one ONNX Runtime session, and its request/reply bookkeeping
 * (the worker's code is `segment-worker.ts`; why a worker is explained there).
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { JobFailure } from '../../errors'
import { SEGMENT_WORKER_SOURCE } from './segment-worker'

/** A tensor's name and shape as the session reports it (symbolic dimensions as strings). */
export interface IoMeta {
  name: string
  shape: (number | string)[]
}

/** Where a session's model comes from: its bytes (transferred), or the machine's optimised copy, checked by hash. */
export type SessionSource = { kind: 'bytes'; model: Uint8Array } | { kind: 'file'; path: string; sha256: string }

/** Which ONNX Runtime the worker loads: the native binding (falling back to WebAssembly where it cannot load), or WebAssembly. */
export type BackendChoice = 'auto' | 'wasm'

/** Messages to the worker (see `segment-worker.ts`). */
export type WorkerRequest =
  | { type: 'init'; id: number; source: SessionSource; options: Record<string, unknown>; saveOptimizedTo?: string; threads?: number }
  | { type: 'run'; id: number; inputName: string; outputName: string; input: Float32Array; dims: number[]; logits: boolean }
  | { type: 'time'; id: number; inputName: string; outputName: string; dims: number[]; runs: number }
  | { type: 'close'; id: number }

/** A session to build ahead, before it is asked for: the machine's optimised copy and the options its last run used. */
export interface PreparedSession {
  source: Extract<SessionSource, { kind: 'file' }>
  options: Record<string, unknown>
}

/** A request before the bookkeeping gives it an id (`Omit` applied to each member of the union). */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never
export type WorkerRequestBody = WithoutId<WorkerRequest>

/** Messages from the worker. */
export type WorkerReply =
  | {
      type: 'ready'
      id: number
      inputNames: string[]
      outputNames: string[]
      inputs: IoMeta[]
      outputs: IoMeta[]
      backend: 'native' | 'wasm'
      /** Why the native binding is not the one running, else null. */
      backendWarning: string | null
      /** SHA-256 of the optimised model written by this init (`saveOptimizedTo`), null when none was. */
      savedSha256: string | null
      /** Whether the session is the one built ahead from the preload's `prepare`. */
      prepared: boolean
    }
  | { type: 'timed'; id: number; ms: number[] }
  | { type: 'result'; id: number; dataType: string; dims: number[]; mask: Uint8Array; input: Float32Array; ms: number }
  | { type: 'closed'; id: number }
  | { type: 'error'; id: number; message: string }
  /** The session of the preload's `prepare` is built, or failed to be (no id: nobody waits for it). */
  | { type: 'prepared' }

interface Pending {
  resolve: (reply: WorkerReply) => void
  reject: (err: Error) => void
}

/**
 * A worker started before any session is asked for (`prestartSessionWorker`): the thread's start
 * and the native runtime's load (~0.3 s) overlap the command's own module loading instead of
 * coming after it. Taken by the first session of the default backend.
 */
let spare: SessionWorker | null = null

/**
 * Starts a worker and loads the native runtime in it, ahead of the first session (`clipdesk
 * process` and `serve`); with `prepare`, it also builds that session (read, checked, created) on
 * its own core while this thread loads the command's modules. The first session takes it when
 * it asks for exactly that source and those options; otherwise it is released first.
 */
export function prestartSessionWorker(prepare: PreparedSession | null = null): void {
  if (spare) return
  spare = new SessionWorker()
  spare.preload(prepare)
}

/**
 * Ends the prestarted worker when no session will be asked for in this process (`serve
 * --paused`, or studio mode without a local worker): a session built ahead holds ~0.3 GB.
 */
export async function discardSpareSessionWorker(): Promise<void> {
  const w = spare
  spare = null
  await w?.close()
}

/** The prestarted worker, once, for a session of the default backend; null otherwise. */
export function takeSpareSessionWorker(opts: { backend?: BackendChoice }): SessionWorker | null {
  if (!spare || (opts.backend ?? 'auto') !== 'auto') return null
  const w = spare
  spare = null
  return w.alive ? w : null
}

/** The worker thread and its request/reply bookkeeping. */
export class SessionWorker {
  private readonly worker: Worker
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  /** Set once the worker has died; every later request fails with it. */
  private dead: JobFailure | null = null
  /** A session being built ahead (`preload` with `prepare`): the thread is kept alive until it settles. */
  private preparing = false

  constructor(opts: { backend?: BackendChoice; threads?: number } = {}) {
    const require = createRequire(import.meta.url)
    // Resolved here: where the native package's binary is missing, `resolve` still finds its JS
    // and the worker's load of it fails. `CLIPDESK_NATIVE_ORT=0` makes that happen on purpose
    // (to compare with, or to get round a native runtime that misbehaves): docs/models.md.
    const ortPath =
      process.env.CLIPDESK_NATIVE_ORT === '0'
        ? '/nonexistent/onnxruntime-node (turned off by CLIPDESK_NATIVE_ORT=0)'
        : require.resolve('onnxruntime-node')
    const webPath = require.resolve('onnxruntime-web')
    this.worker = new Worker(SEGMENT_WORKER_SOURCE, {
      eval: true,
      workerData: { ortPath, webPath, backend: opts.backend ?? 'auto', threads: opts.threads ?? 1 }
    })
    this.worker.on('message', (reply: WorkerReply) => this.settle(reply))
    this.worker.on('error', (err) => this.die(`the segmentation worker crashed: ${err.message}`, err))
    this.worker.on('exit', (code) => this.die(`the segmentation worker exited (code ${code})`))
    // An idle segmenter must not keep the process alive; a request in flight does (`request`).
    // After the listeners: adding a 'message' listener refs the worker again.
    this.worker.unref()
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

  /** Whether the thread still runs (a prestarted one may have died before it was taken). */
  get alive(): boolean {
    return this.dead === null
  }

  /** Loads the runtime now, and builds `prepare`'s session; no reply (a failure is told by the session's init). */
  preload(prepare: PreparedSession | null = null): void {
    this.worker.postMessage({ type: 'preload', prepare })
    if (prepare) {
      this.preparing = true
      this.worker.ref()
    }
  }

  /** Releases the worker's session (and any built ahead), then ends the thread; a failed release still ends it. */
  async close(): Promise<void> {
    await this.request({ type: 'close' }).catch(() => undefined)
    await this.terminate()
  }

  async terminate(): Promise<void> {
    this.dead ??= new JobFailure('pipeline_error', 'the segmenter has been closed')
    await this.worker.terminate()
  }

  private settle(reply: WorkerReply): void {
    if (reply.type === 'prepared') {
      this.preparing = false
      if (this.pending.size === 0) this.worker.unref()
      return
    }
    const p = this.pending.get(reply.id)
    if (!p) return
    this.pending.delete(reply.id)
    if (this.pending.size === 0 && !this.preparing) this.worker.unref()
    p.resolve(reply)
  }

  private die(message: string, cause?: unknown): void {
    this.dead ??= new JobFailure('pipeline_crashed', message, { cause })
    for (const p of this.pending.values()) p.reject(this.dead)
    this.pending.clear()
  }
}
