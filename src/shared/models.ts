/**
 * The model registry's contract, shared by the engine, the CLI, IPC and the renderer.
 */

/** Where inference runs. `auto`: DirectML on Windows, CoreML on macOS, CUDA where installed, else CPU. */
export const DEVICES = ['auto', 'cpu', 'directml', 'coreml', 'cuda', 'webgpu'] as const
export type Device = (typeof DEVICES)[number]
/** A device that actually ran a model (never `auto`). */
export type ActualDevice = Exclude<Device, 'auto'>

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
