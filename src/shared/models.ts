/**
 * The model registry's contract, shared by the engine, the CLI, IPC and the renderer.
 */

/**
 * Where inference runs. `auto`: DirectML on Windows, CoreML on macOS, CUDA where installed, else
 * CPU. `wasm`: ONNX Runtime's WebAssembly build on the CPU, several times slower than `cpu`; the
 * engine falls back to it by itself where the native runtime cannot load (no binary for the
 * platform, e.g. Intel macOS), and it can be chosen to compare.
 */
export const DEVICES = ['auto', 'cpu', 'directml', 'coreml', 'cuda', 'webgpu', 'wasm'] as const
export type Device = (typeof DEVICES)[number]
/**
 * The session settings in a few words, for the CLI and the app: "2 threads (measured: 8 → 410 ms,
 * 16 → 350 ms), optimised copy".
 */
export function sessionSummary(s: SessionSettings | null): string {
  if (!s) return 'not measured yet'
  const how =
    s.chosenBy === 'measured' && s.runMs
      ? `measured: ${Object.entries(s.runMs)
          .map(([t, ms]) => `${t} → ${ms} ms`)
          .join(', ')}`
      : s.chosenBy === 'setting'
        ? 'as set'
        : 'one choice'
  const parts = [`${s.threads} thread${s.threads === 1 ? '' : 's'} (${how})`]
  if (s.backend === 'wasm') parts.push('WebAssembly')
  if (s.optimizedModel !== 'none') parts.push('optimised copy')
  if (s.backend === 'native' && !s.arena) parts.push('no arena')
  return parts.join(', ')
}

/** A device that actually ran a model (never `auto`). */
export type ActualDevice = Exclude<Device, 'auto'>

/**
 * How a model's session was set up on this machine (docs/pipeline.md, "Session settings"):
 * what `clipdesk models list`, `GET /api/v1/health` and the app's Settings show.
 */
export interface SessionSettings {
  /** `native`: onnxruntime-node; `wasm`: onnxruntime-web's WebAssembly backend (fallback). */
  backend: 'native' | 'wasm'
  /** Intra-op threads of the session. */
  threads: number
  /** `measured`: the fastest count at the first load on this machine; `only-choice`; `setting`: given. */
  chosenBy: 'measured' | 'only-choice' | 'setting'
  /** Milliseconds per run of each thread count measured, when measured. */
  runMs: Record<string, number> | null
  measuredAt: string | null
  /** ONNX Runtime's CPU memory arena: kept between runs (no page faults per run) unless the machine has little memory. */
  arena: boolean
  /** The machine's optimised copy of the model: there and used, made at this load, or not used (other device, wasm). */
  optimizedModel: 'cached' | 'made' | 'none'
  cpu: { model: string; logical: number; physical: number | null; simd: string[] }
}

/** Known descriptor ids (`clipdesk models add --as`), as in docs/models.md. */
export const KNOWN_MODEL_IDS = [
  'birefnet-general',
  'birefnet-general-lite',
  'birefnet-portrait',
  'birefnet-massive',
  'bria-rmbg-2.0',
  'ben2-base',
  'u2net',
  'u2netp',
  'isnet-general-use',
  'isnet-anime'
] as const

/** A model's name in the registry (also what `model=<name>` in a parameter set names). */
export const MODEL_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/

export interface ModelInfo {
  name: string
  /** `builtin`, a known descriptor id (`birefnet-general`, …) or `custom`. */
  family: string
  builtin: boolean
  isDefault: boolean
  /** Bytes of the ONNX file. */
  bytes: number
  sha256: string | null
  path: string | null
  inputSize: [number, number]
  dynamic: boolean
  outputKind: 'logits' | 'probabilities'
  licence: string
  source: string
  speedClass: string
  /** The device setting and, once the model has been loaded, the device that ran it. */
  device: Device
  /** What the setting means on this machine (`auto` resolved), before any load. */
  plannedDevice: ActualDevice
  activeDevice: ActualDevice | null
  /** Why the device setting was not used (a provider that failed to load), else null. */
  deviceWarning: string | null
  resident: boolean
  /** The session's settings once loaded (else the machine's saved choice for this model, or null). */
  session: SessionSettings | null
}

/** What a test run of a model on a sample image gave. */
export interface ModelTestRun {
  name: string
  device: ActualDevice
  deviceWarning: string | null
  inferenceMs: number
  /** Share of the sample's mask above half (a sanity figure for the UI). */
  foregroundShare: number
}

/** Adds a model file: by path (CLI, Electron) or by bytes (a browser, a sandboxed picker). */
export interface ModelAddRequest {
  file: { path: string } | { bytes: Uint8Array; name: string }
  name?: string
  /** A known descriptor id (`birefnet-general`, …) whatever the file is called. */
  as?: string
  /** A custom descriptor (docs/models.md). */
  descriptor?: unknown
}

export interface ModelAddResult {
  model: ModelInfo
  test: ModelTestRun
}
