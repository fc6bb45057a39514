/**
 * The worker thread that owns one ONNX Runtime session, and its request/reply bookkeeping
 * (the worker's code is `segment-worker.ts`; why a worker is explained there).
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { JobFailure } from '../errors'
import { SEGMENT_WORKER_SOURCE } from './segment-worker'

/** A tensor's name and shape as the session reports it (symbolic dimensions as strings). */
export interface IoMeta {
  name: string
  shape: (number | string)[]
}

/** Messages to the worker (see `segment-worker.ts`). */
export type WorkerRequest =
  | { type: 'init'; id: number; model: Uint8Array; options: Record<string, unknown> }
  | { type: 'run'; id: number; inputName: string; outputName: string; input: Float32Array; dims: number[]; logits: boolean }
  | { type: 'close'; id: number }

/** A request before the bookkeeping gives it an id (`Omit` applied to each member of the union). */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never
export type WorkerRequestBody = WithoutId<WorkerRequest>

/** Messages from the worker. */
export type WorkerReply =
  | { type: 'ready'; id: number; inputNames: string[]; outputNames: string[]; inputs: IoMeta[]; outputs: IoMeta[] }
  | { type: 'result'; id: number; dataType: string; dims: number[]; mask: Uint8Array; input: Float32Array; ms: number }
  | { type: 'closed'; id: number }
  | { type: 'error'; id: number; message: string }

interface Pending {
  resolve: (reply: WorkerReply) => void
  reject: (err: Error) => void
}

/** The worker thread and its request/reply bookkeeping. */
export class SessionWorker {
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
