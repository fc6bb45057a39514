/**
 * Entry of the refine thread (`refine-thread.ts` says why it exists): runs `refineEdges` for
 * each request and hands the two result planes back (transferred, not copied); warms up on request.
 */
import os from 'node:os'
import { parentPort } from 'node:worker_threads'
import { asBuffer } from '../../as-buffer'
import { refineEdges } from './refine'
import type { RefineReply, RefineRequest, RefineWarmUp } from './refine-thread'

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

parentPort?.on('message', (req: RefineRequest | RefineWarmUp) => {
  void ('warm' in req ? warmUp(req.id) : run(req))
})

/**
 * A refine of a made-up photo (a soft disc on a gradient, 192 px: a few ms of work) so that the
 * first real one finds the code compiled and sharp loaded; answered with an empty result.
 */
async function warmUp(id: number): Promise<void> {
  const side = 192
  const data = Buffer.alloc(side * side * 4)
  const mask = Buffer.alloc(256 * 256)
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) data.set([x, y, (x + y) >> 1, 255], (y * side + x) * 4)
  }
  for (let y = 0; y < 256; y++) {
    for (let x = 0; x < 256; x++) mask[y * 256 + x] = Math.max(0, Math.min(255, Math.round((90 - Math.hypot(x - 128, y - 128)) * 16)))
  }
  let reply: RefineReply
  try {
    await refineEdges({ data, width: side, height: side }, { data: mask, width: 256, height: 256 })
    reply = { id, alpha: new Uint8Array(0), foreground: new Uint8Array(0) }
  } catch (err) {
    reply = { id, error: err instanceof Error ? err.message : String(err) }
  }
  parentPort!.postMessage(reply)
}

async function run(req: RefineRequest): Promise<void> {
  let reply: RefineReply
  const transfer: ArrayBuffer[] = []
  try {
    const image = { data: asBuffer(req.image.data), width: req.image.width, height: req.image.height }
    const mask = { data: asBuffer(req.mask.data), width: req.mask.width, height: req.mask.height }
    const r = await refineEdges(image, mask, { within: req.within })
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
