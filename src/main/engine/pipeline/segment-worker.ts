/**
 * The code of the worker thread that owns the ONNX Runtime session.
 *
 * Why a worker: onnxruntime-node's `session.run` is synchronous native code on the calling
 * thread (its promise only defers the start with setImmediate), so on the main thread every
 * ~3 s inference would freeze the HTTP API, IPC and all other I/O. In a worker the main event
 * loop stays free and decode/encode of other jobs really overlap with inference.
 *
 * Why a string run with `eval: true`: it needs no separate build entry or file path, so it
 * works the same from vitest, from the electron-vite bundle and from plain Node. It loads
 * onnxruntime-node by the absolute path the main thread resolved (`workerData.ortPath`).
 * Plain CommonJS JavaScript; the message shapes are typed in `session-worker.ts`.
 */
export const SEGMENT_WORKER_SOURCE = String.raw`
'use strict'
const { parentPort, workerData } = require('node:worker_threads')
const ort = require(workerData.ortPath)
let session = null

parentPort.on('message', (msg) => {
  handle(msg).catch((err) => {
    parentPort.postMessage({ type: 'error', id: msg.id, message: String((err && err.message) || err) })
  })
})

async function handle(msg) {
  if (msg.type === 'init') {
    session = await ort.InferenceSession.create(msg.model, msg.options)
    // The session has its own copy of the weights now: let the ~90 MB of model bytes go.
    msg.model = null
    const meta = (list, names) => (list || names.map((name) => ({ name }))).map((m) => ({ name: m.name, shape: Array.from(m.shape || []) }))
    parentPort.postMessage({
      type: 'ready', id: msg.id, inputNames: session.inputNames, outputNames: session.outputNames,
      inputs: meta(session.inputMetadata, session.inputNames), outputs: meta(session.outputMetadata, session.outputNames)
    })
  } else if (msg.type === 'run') {
    if (!session) throw new Error('no session')
    const feeds = { [msg.inputName]: new ort.Tensor('float32', msg.input, msg.dims) }
    const started = performance.now()
    const out = await session.run(feeds, [msg.outputName])
    const ms = performance.now() - started
    const tensor = out[msg.outputName]
    const data = tensor.data
    // Quantised to 8 bits here, off the main thread: 1 MB goes back instead of 4 MB. Only the
    // first plane is read (a model may give [1, k, H, W]). Probabilities may step just outside
    // [0, 1] with fp16 rounding; logits go through a sigmoid first; NaN → 0.
    const plane = tensor.dims.length >= 2 ? tensor.dims[tensor.dims.length - 1] * tensor.dims[tensor.dims.length - 2] : data.length
    const mask = new Uint8Array(Math.min(plane, data.length))
    if (msg.logits) {
      for (let i = 0; i < mask.length; i++) {
        const v = 1 / (1 + Math.exp(-data[i]))
        mask[i] = v > 0 ? (v < 1 ? Math.round(v * 255) : 255) : 0
      }
    } else {
      for (let i = 0; i < mask.length; i++) {
        const v = data[i]
        mask[i] = v > 0 ? (v < 1 ? Math.round(v * 255) : 255) : 0
      }
    }
    // The input goes back too, so the main thread can fill it again for the next run.
    parentPort.postMessage(
      { type: 'result', id: msg.id, dataType: tensor.type, dims: tensor.dims, mask, input: msg.input, ms },
      [mask.buffer, msg.input.buffer]
    )
  } else if (msg.type === 'close') {
    const s = session
    session = null
    if (s) await s.release()
    parentPort.postMessage({ type: 'closed', id: msg.id })
  } else {
    throw new Error('unknown message ' + msg.type)
  }
}
`
