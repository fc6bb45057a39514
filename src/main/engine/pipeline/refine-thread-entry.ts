/**
 * Entry of the refine thread (`refine-thread.ts` says why it exists): runs `refineEdges` for
 * each request and hands the two result planes back (transferred, not copied).
 */
import os from 'node:os'
import { parentPort } from 'node:worker_threads'
import { asBuffer } from '../as-buffer'
import { refineEdges } from './refine'
import type { RefineReply, RefineRequest } from './refine-thread'

/** The thread's nice value (19 the lowest priority): it runs when the model leaves a core idle. */
const REFINE_NICE = 19

// Linux keeps a nice value per thread: this one yields to the model's threads. Elsewhere it
// would lower the whole process, the model with it, so the thread keeps normal priority.
if (process.platform === 'linux') {
  try {
    os.setPriority(REFINE_NICE)
  } catch {
    // Not allowed in this environment: normal priority then.
  }
}

parentPort?.on('message', (req: RefineRequest) => {
  void run(req)
})

async function run(req: RefineRequest): Promise<void> {
  let reply: RefineReply
  const transfer: ArrayBuffer[] = []
  try {
    const image = { data: asBuffer(req.image.data), width: req.image.width, height: req.image.height }
    const mask = { data: asBuffer(req.mask.data), width: req.mask.width, height: req.mask.height }
    const r = await refineEdges(image, mask)
    const alpha = owned(r.alpha)
    const foreground = owned(r.foreground)
    transfer.push(alpha.buffer as ArrayBuffer)
    if (foreground.buffer !== alpha.buffer) transfer.push(foreground.buffer as ArrayBuffer)
    reply = { id: req.id, alpha, foreground }
  } catch (err) {
    reply = { id: req.id, error: err instanceof Error ? err.message : String(err) }
  }
  parentPort!.postMessage(reply, transfer)
}

/** The bytes in an ArrayBuffer of their own (a pooled or shared one must not be transferred). */
function owned(b: Uint8Array): Uint8Array {
  return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : new Uint8Array(b)
}
