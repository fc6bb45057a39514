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
 * Plain CommonJS JavaScript; the message shapes are typed in `mask.ts`.
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
    parentPort.postMessage({ type: 'ready', id: msg.id, inputNames: session.inputNames, outputNames: session.outputNames })
  } else if (msg.type === 'run') {
    if (!session) throw new Error('no session')
    const feeds = { [msg.inputName]: new ort.Tensor('float32', msg.input, msg.dims) }
    const out = await session.run(feeds, [msg.outputName])
    const tensor = out[msg.outputName]
    const data = tensor.data
    // Hand the output over without copying it (4 MB per run).
    const transfer = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? [data.buffer] : []
    parentPort.postMessage({ type: 'result', id: msg.id, dataType: tensor.type, dims: tensor.dims, data }, transfer)
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
