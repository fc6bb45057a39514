/**
 * The code of the worker thread that owns the ONNX Runtime session.
 *
 * Why a worker: onnxruntime-node's `session.run` is synchronous native code on the calling
 * thread (its promise only defers the start with setImmediate), so on the main thread every
 * inference would freeze the HTTP API, IPC and all other I/O. In a worker the main event
 * loop stays free and decode/encode of other jobs really overlap with inference.
 *
 * Why a string run with `eval: true`: it needs no separate build entry or file path, so it
 * works the same from vitest, from the electron-vite bundle and from plain Node. It loads
 * onnxruntime-node by the absolute path the main thread resolved (`workerData.ortPath`); where
 * that native binding is missing (no binary for the platform, e.g. Intel macOS) or fails to
 * load, it runs onnxruntime-web's WebAssembly backend instead (`workerData.webPath`), and says
 * so in its `ready` reply. `workerData.backend === 'wasm'` forces that path (tests, benchmarks).
 *
 * The session comes from the model's bytes, or from the machine's optimised copy of it
 * (`models/optimized-model.ts`): that file is read and checked here, off the main thread, and
 * the session uses its bytes in place (no second copy of the weights). Building from the
 * model's bytes may also write that optimised copy (`saveOptimizedTo`). A worker started ahead
 * may build the session the machine's last run used while the main thread loads its modules
 * (`prepare`, docs/pipeline.md "Cold start").
 * Plain CommonJS JavaScript; the message shapes are typed in `session-worker.ts`.
 */
export const SEGMENT_WORKER_SOURCE = String.raw`
'use strict'
const { parentPort, workerData } = require('node:worker_threads')
const { createHash } = require('node:crypto')
const { readFileSync } = require('node:fs')

let ort = null
let backend = 'native'
let backendWarning = null
// The native binding, unless WebAssembly was asked for; the error when it cannot load.
function loadNative() {
  if (ort || workerData.backend === 'wasm') return null
  try {
    ort = require(workerData.ortPath)
    return null
  } catch (err) {
    return err || new Error('unknown error')
  }
}

function loadOrt(threads) {
  if (ort) return
  if (workerData.backend !== 'wasm') {
    const err = loadNative()
    if (!err) return
    backendWarning = 'the native ONNX Runtime could not be loaded (' + String((err && err.message) || err).split('\n')[0] + ')'
  } else {
    backendWarning = 'the WebAssembly backend was asked for'
  }
  ort = require(workerData.webPath)
  backend = 'wasm'
  ort.env.wasm.numThreads = threads
}

let session = null
// Whether the session came from the preload's \`prepare\` (told in the ready reply).
let wasPrepared = false
// The session being built ahead (\`preload\` with \`prepare\`): { key, promise }, until init takes it.
let prepared = null
// The optimised model's bytes, which the session uses in place (use_ort_model_bytes_directly):
// they must outlive the session, so this reference holds them until it is closed.
let sessionBytes = null

parentPort.on('message', (msg) => {
  // Started ahead of its session (session-worker.ts, prestartSessionWorker): the native binding
  // loads now, while the main thread loads its own modules; where it cannot, init says why.
  // A failure is not told here: loadOrt at init tries again and falls back, with the reason.
  // With \`prepare\`, the session the last run of this machine opened (its optimised copy and
  // options, models/last-session.ts) is built right away too: init takes it when it asks for
  // exactly that one, and releases it otherwise.
  if (msg.type === 'preload') {
    if (!loadNative() && msg.prepare && workerData.backend !== 'wasm') {
      const { source, options } = msg.prepare
      const promise = fromFile(source, options)
      // Its failure is told, if at all, by the init that asks for it. The main thread keeps this
      // thread alive until the build settles: ONNX Runtime's native code must not be cut off
      // mid-way by a command that ends early (it aborts the process).
      promise.then(() => undefined, () => undefined).then(() => parentPort.postMessage({ type: 'prepared' }))
      prepared = { key: sessionKey(source, options), promise }
    }
    return
  }
  handle(msg).catch((err) => {
    parentPort.postMessage({ type: 'error', id: msg.id, message: String((err && err.message) || err) })
  })
})

function sessionKey(source, options) {
  return source && source.kind === 'file' ? JSON.stringify([source.path, source.sha256, options]) : null
}

// The optimised copy, read and checked here, and its session, which uses the bytes in place.
async function fromFile(source, options) {
  const bytes = readFileSync(source.path)
  const digest = createHash('sha256').update(bytes).digest('hex')
  if (digest !== source.sha256) throw new Error('the optimised model ' + source.path + ' is damaged (SHA-256 ' + digest + ')')
  return { session: await ort.InferenceSession.create(bytes, options), bytes }
}

// The prepared session when it is the one asked for; else it is released (one session's memory
// at a time) and null comes back.
async function takePrepared(msg) {
  const p = prepared
  prepared = null
  let got = null
  try {
    got = await p.promise
  } catch {
    return null
  }
  if (p.key !== null && p.key === sessionKey(msg.source, msg.options)) return got
  await got.session.release()
  return null
}

async function create(msg) {
  if (prepared) {
    const got = await takePrepared(msg)
    if (got) {
      sessionBytes = got.bytes
      wasPrepared = true
      return got.session
    }
  }
  loadOrt(msg.threads || workerData.threads)
  if (backend === 'wasm') {
    if (msg.source.kind !== 'bytes') throw new Error('the WebAssembly backend needs the model itself, not an optimised copy')
    // The wasm build runs on the CPU only; the native options (arena, threads) do not apply.
    return ort.InferenceSession.create(msg.source.model, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' })
  }
  if (msg.source.kind === 'file') {
    const got = await fromFile(msg.source, msg.options)
    sessionBytes = got.bytes
    return got.session
  }
  const options = msg.saveOptimizedTo
    ? { ...msg.options, logSeverityLevel: 3, optimizedModelFilePath: msg.saveOptimizedTo, extra: { ...(msg.options.extra || {}), session: { ...((msg.options.extra || {}).session || {}), save_model_format: 'ORT' } } }
    : msg.options
  return ort.InferenceSession.create(msg.source.model, options)
}

async function handle(msg) {
  if (msg.type === 'init') {
    session = await create(msg)
    // The session has its own copy of the weights now: let the model bytes go.
    msg.source = null
    let savedSha256 = null
    if (msg.saveOptimizedTo && backend === 'native') {
      try {
        savedSha256 = createHash('sha256').update(readFileSync(msg.saveOptimizedTo)).digest('hex')
      } catch {
        savedSha256 = null
      }
    }
    const meta = (list, names) => (list || names.map((name) => ({ name }))).map((m) => ({ name: m.name, shape: Array.from(m.shape || []) }))
    parentPort.postMessage({
      type: 'ready', id: msg.id, inputNames: session.inputNames, outputNames: session.outputNames,
      inputs: meta(session.inputMetadata, session.inputNames), outputs: meta(session.outputMetadata, session.outputNames),
      backend, backendWarning, savedSha256, prepared: wasPrepared
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
    if (typeof tensor.dispose === 'function') tensor.dispose()
    // The input goes back too, so the main thread can fill it again for the next run.
    parentPort.postMessage(
      { type: 'result', id: msg.id, dataType: tensor.type, dims: tensor.dims, mask, input: msg.input, ms },
      [mask.buffer, msg.input.buffer]
    )
  } else if (msg.type === 'time') {
    // Timing runs on a fixed pattern (the session settings' measurement, models/tuning.ts).
    if (!session) throw new Error('no session')
    const n = msg.dims.reduce((a, b) => a * b, 1)
    const input = new Float32Array(n)
    for (let i = 0; i < n; i++) input[i] = ((i * 2654435761) % 1000) / 1000 - 0.5
    const ms = []
    for (let r = 0; r < msg.runs; r++) {
      const started = performance.now()
      const out = await session.run({ [msg.inputName]: new ort.Tensor('float32', input, msg.dims) }, [msg.outputName])
      ms.push(performance.now() - started)
      const t = out[msg.outputName]
      if (t && typeof t.dispose === 'function') t.dispose()
    }
    parentPort.postMessage({ type: 'timed', id: msg.id, ms })
  } else if (msg.type === 'close') {
    const s = session
    session = null
    if (s) await s.release()
    if (prepared) await takePrepared(msg) // never the one asked for: released
    sessionBytes = null
    parentPort.postMessage({ type: 'closed', id: msg.id })
  } else {
    throw new Error('unknown message ' + msg.type)
  }
}
`
