/**
 * Starts a model's session in its worker thread with the settings this machine should use:
 * the device (a provider that fails to load falls back to the CPU), the thread count
 * (`tuning.ts`), the CPU arena (`devices.ts`), and on the CPU the machine's optimised copy of
 * the model (`optimized-model.ts`), made at the first load and used from then on. Where the
 * native ONNX Runtime cannot load, the worker runs the WebAssembly build instead and the
 * settings say so (`backend: 'wasm'`, device `wasm`).
 */
import os from 'node:os'
import type { ActualDevice, SessionSettings } from '../../../../shared/models'
import { SessionWorker, takeSpareSessionWorker, type BackendChoice, type SessionSource, type WorkerReply } from './session-worker'
import { keepsArena, providerOptions } from './devices'
import { rememberSession } from './last-session'
import { cpuProfile, type CpuProfile } from './machine'
import { OptimizedModels } from './optimized-model'
import { chooseThreads, threadCandidates, TuningRecords, type ThreadChoice } from './tuning'
import { errorText } from '../../../../shared/errors'

type Ready = Extract<WorkerReply, { type: 'ready' }>

export interface OpenSessionOptions {
  /** For messages: "medium IS-Net model", "model birefnet-general". */
  label: string
  /** The device asked for, `auto` resolved. */
  device: ActualDevice
  /** Names the weights in the machine's caches (changes when the weights do). */
  modelId: string
  /** The model's bytes, a fresh buffer per call (it is transferred to the worker). */
  modelBytes: () => Promise<Uint8Array>
  /** A thread count given by the caller; else chosen here. */
  threads?: number
  /** Session options over the engine's (experiments, tests): the optimised copy is then not used. */
  custom?: Record<string, unknown>
  /** The machine cache folder; null: no optimised copy, nothing remembered. */
  cacheDir: string | null
  /** The input and output to time, from the loaded graph (throws when it does not fit its descriptor). */
  io: (reply: Ready) => { inputName: string; outputName: string; dims: number[] }
}

/** The loaded graph does not fit the model's descriptor (the message says how). */
export class IoMismatch extends Error {}

export interface OpenedSession {
  worker: SessionWorker
  reply: Ready
  device: ActualDevice
  deviceWarning: string | null
  settings: SessionSettings
}

/** Graph optimisation for a session built from the model itself (fastest here: docs/pipeline.md). */
const BUILD_LEVEL = 'all'
/**
 * A session from the optimised copy: already optimised; its bytes serve as the weights in place.
 * Its config entries join the engine's (threads that sleep between parallel sections): spread
 * over them, `extra` would replace them, as it did until this was written out.
 */
function fromCopyOptions(threads: number, arena: boolean): Record<string, unknown> {
  const base = providerOptions('cpu', threads, arena) as { extra: { session: Record<string, unknown> } }
  return {
    ...base,
    graphOptimizationLevel: 'disabled',
    extra: {
      ...base.extra,
      session: { ...base.extra.session, use_ort_model_bytes_directly: '1', use_ort_model_bytes_for_initializers: '1' }
    }
  }
}

export async function openSession(opts: OpenSessionOptions): Promise<OpenedSession> {
  const profile = cpuProfile()
  const arena = keepsArena(os.totalmem())
  const o = { ...opts, backend: (opts.device === 'wasm' ? 'wasm' : 'auto') as BackendChoice }
  if (o.device !== 'cpu' && o.device !== 'wasm') {
    const threads = o.threads ?? defaultThreads(profile)
    try {
      const started = await startSession(
        await o.modelBytes(),
        { ...providerOptions(o.device, threads, arena), graphOptimizationLevel: BUILD_LEVEL, ...o.custom },
        o.label,
        { threads }
      )
      const choice: ThreadChoice = { threads, chosenBy: o.threads === undefined ? 'only-choice' : 'setting', runMs: null, measuredAt: null }
      // No native runtime here at all: the worker runs WebAssembly, which has no GPU provider.
      if (started.reply.backend === 'wasm') return finish(started, choice, arena, 'none', profile)
      return { ...started, device: o.device, deviceWarning: null, settings: settingsOf(started.reply, choice, arena, 'none', profile) }
    } catch (err) {
      const warning = `the ${o.device} execution provider could not be used (${errorText(err).split('\n')[0]}); running on the CPU`
      const cpu = await openCpu(o, profile, arena)
      return { ...cpu, deviceWarning: cpu.deviceWarning ?? warning }
    }
  }
  return openCpu(o, profile, arena)
}

async function openCpu(o: OpenSessionOptions & { backend: BackendChoice }, profile: CpuProfile, arena: boolean): Promise<OpenedSession> {
  const copies = o.cacheDir && !o.custom ? new OptimizedModels(o.cacheDir) : null
  const records = o.cacheDir && !o.custom ? new TuningRecords(o.cacheDir) : null
  let optimized: SessionSettings['optimizedModel'] = 'none'

  const open = async (threads: number): Promise<{ worker: SessionWorker; reply: Ready }> => {
    const fromCopy = fromCopyOptions(threads, arena)
    const found = copies?.find(o.modelId, profile.fingerprint)
    if (found && o.backend !== 'wasm') {
      try {
        const source = { kind: 'file', path: found.path, sha256: found.record.sha256 } as const
        const started = await startSession(source, fromCopy, o.label, { threads, backend: o.backend })
        if (optimized === 'none') optimized = 'cached'
        if (started.reply.backend === 'native') rememberSession(o.cacheDir!, { source, options: fromCopy })
        return started
      } catch {
        // A damaged or unreadable copy: forget it and build the session from the model again.
        copies!.remove(o.modelId, profile.fingerprint)
      }
    }
    const scratch = o.backend === 'wasm' ? null : (copies?.scratchPath(o.modelId, profile.fingerprint) ?? null)
    const options = { ...providerOptions('cpu', threads, arena), graphOptimizationLevel: BUILD_LEVEL, ...o.custom }
    try {
      const started = await startSession(await o.modelBytes(), options, o.label, { threads, backend: o.backend }, scratch ?? undefined)
      if (scratch && started.reply.backend === 'native' && started.reply.savedSha256) {
        const path = copies!.commit(scratch, o.modelId, profile.fingerprint, started.reply.savedSha256)
        optimized = 'made'
        rememberSession(o.cacheDir!, { source: { kind: 'file', path, sha256: started.reply.savedSha256 }, options: fromCopy })
      } else if (scratch) copies!.discard(scratch)
      return started
    } catch (err) {
      if (scratch) copies!.discard(scratch)
      throw err
    }
  }

  if (o.backend === 'wasm') {
    // The WebAssembly build is several times slower per run: no measuring, one thread per core.
    const threads = o.threads ?? defaultThreads(profile)
    const started = await open(threads)
    return finish(
      started,
      { threads, chosenBy: o.threads === undefined ? 'only-choice' : 'setting', runMs: null, measuredAt: null },
      arena,
      optimized,
      profile
    )
  }

  // The first session starts with the remembered (or given) count, else the first candidate:
  // when measuring is needed it is measured first, so a 1-candidate machine loads exactly once.
  const remembered = o.threads ?? records?.get(o.modelId, profile.fingerprint)?.threads
  const first = remembered ?? threadCandidates(profile)[0]!
  let current = { threads: first, ...(await open(first)) }
  try {
    o.io(current.reply)
  } catch (err) {
    await current.worker.terminate()
    throw new IoMismatch(errorText(err))
  }
  if (current.reply.backend === 'wasm') {
    return finish(
      current,
      { threads: current.threads, chosenBy: o.threads === undefined ? 'only-choice' : 'setting', runMs: null, measuredAt: null },
      arena,
      'none',
      profile
    )
  }
  try {
    const choice = await chooseThreads(profile, o.modelId, records, o.threads, async (threads) => {
      if (threads !== current.threads) {
        await current.worker.close()
        current = { threads, ...(await open(threads)) }
      }
      return timeRuns(current.worker, o.io(current.reply))
    })
    if (choice.threads !== current.threads) {
      await current.worker.close()
      current = { threads: choice.threads, ...(await open(choice.threads)) }
    }
    return finish(current, choice, arena, optimized, profile)
  } catch (err) {
    await current.worker.terminate()
    throw err
  }
}

function finish(
  started: { worker: SessionWorker; reply: Ready },
  choice: ThreadChoice,
  arena: boolean,
  optimized: SessionSettings['optimizedModel'],
  profile: CpuProfile
): OpenedSession {
  const wasm = started.reply.backend === 'wasm'
  return {
    ...started,
    device: wasm ? 'wasm' : 'cpu',
    deviceWarning: wasm
      ? `${started.reply.backendWarning ?? 'the native ONNX Runtime could not be loaded'}; running on WebAssembly, several times slower`
      : null,
    settings: settingsOf(started.reply, choice, arena, wasm ? 'none' : optimized, profile)
  }
}

function settingsOf(
  reply: Ready,
  choice: ThreadChoice,
  arena: boolean,
  optimized: SessionSettings['optimizedModel'],
  p: CpuProfile
): SessionSettings {
  return {
    backend: reply.backend,
    threads: choice.threads,
    chosenBy: choice.chosenBy,
    runMs: choice.runMs,
    measuredAt: choice.measuredAt,
    arena: reply.backend === 'native' && arena,
    optimizedModel: optimized,
    cpu: { model: p.model, logical: p.logical, physical: p.physical, simd: p.simd }
  }
}

/**
 * What this machine remembers for a model before any session of it is loaded (listings): the
 * thread count chosen, and whether its optimised copy is there. Null when nothing is saved.
 */
export function savedSessionSettings(modelId: string, cacheDir: string): SessionSettings | null {
  const profile = cpuProfile()
  const choice = new TuningRecords(cacheDir).get(modelId, profile.fingerprint)
  if (!choice) return null
  const copy = new OptimizedModels(cacheDir).find(modelId, profile.fingerprint)
  const arena = keepsArena(os.totalmem())
  return {
    backend: 'native',
    threads: choice.threads,
    chosenBy: choice.chosenBy,
    runMs: choice.runMs,
    measuredAt: choice.measuredAt,
    arena,
    optimizedModel: copy ? 'cached' : 'none',
    cpu: { model: profile.model, logical: profile.logical, physical: profile.physical, simd: profile.simd }
  }
}

/** One thread per core that runs the model well (the smallest candidate). */
function defaultThreads(p: CpuProfile): number {
  return threadCandidates(p)[0]!
}

/** A warm-up run (the arena grows, pages fault in), then two timed runs: the faster one's ms. */
async function timeRuns(worker: SessionWorker, io: { inputName: string; outputName: string; dims: number[] }): Promise<number> {
  const reply = await worker.request({ type: 'time', ...io, runs: 3 })
  if (reply.type !== 'timed')
    throw new Error(reply.type === 'error' ? reply.message : `unexpected reply ${reply.type} while timing the model`)
  return Math.min(...reply.ms.slice(1))
}

/** A worker with a session built from `source` (bytes are transferred), or throws with ORT's message. */
export async function startSession(
  source: Uint8Array | SessionSource,
  options: Record<string, unknown>,
  label: string,
  worker: { threads: number; backend?: BackendChoice },
  saveOptimizedTo?: string
): Promise<{ worker: SessionWorker; reply: Ready }> {
  const w = takeSpareSessionWorker(worker) ?? new SessionWorker(worker)
  const src: SessionSource = source instanceof Uint8Array ? { kind: 'bytes', model: source } : source
  let reply: WorkerReply
  try {
    // Transferred, not copied: this thread keeps no copy of the model.
    const transfer = src.kind === 'bytes' ? [src.model.buffer as ArrayBuffer] : []
    reply = await w.request(
      { type: 'init', source: src, options, threads: worker.threads, ...(saveOptimizedTo ? { saveOptimizedTo } : {}) },
      transfer
    )
  } catch (cause) {
    await w.terminate()
    throw cause
  }
  if (reply.type !== 'ready') {
    await w.terminate()
    throw new Error(reply.type === 'error' ? reply.message : `unexpected reply ${reply.type} while loading the ${label}`)
  }
  return { worker: w, reply }
}
