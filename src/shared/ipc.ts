/**
 * The IPC contract: one map from which main registers its handlers, the preload exposes
 * `window.api`, and the renderer takes its types. Upload and status have the same
 * request/response shapes as HTTP. Each method takes one argument (an object when it needs
 * several values) so that the bridge stays generic and typed.
 */
import type { StatusResponse, UploadResponse } from './api'
import type {
  ApiKeyView,
  AppInfo,
  KeyCreateRequest,
  KeyCreditRequest,
  ListenerStatus,
  OpenPathResult,
  Screen,
  SettingsPatch,
  SettingsView
} from './app'
import type { BatchAddRequest, BatchAddResult, BatchCreateRequest, BatchDetail, BatchItemView, BatchSummary, BatchTarget } from './batches'
import type { ErrorBody } from './errors'
import type { IpcUploadRequest } from './ipc-upload'
import type { ModelAddRequest, ModelAddResult, ModelInfo, ModelTestRun } from './models'
import type { PresetInfo, PresetSaveRequest } from './presets'
import type { ResultDownload, ResultTarget } from './results'
import type { StudioView } from './studio'
import type { TouchUpPreview, TouchUpPreviewRequest, TouchUpResult, TouchUpSaveRequest } from './touchup'
import type { WatchAddRequest, WatchEvent, WatchFolderView, WatchRetryRequest, WatchRetryResult, WatchUpdateRequest } from './watch'

/** Invoke methods: name → [argument, result]. Add a feature's methods here. */
export interface IpcInvokeMap {
  upload: [IpcUploadRequest, UploadResponse]
  status: [string, StatusResponse]
  // Batches (docs/batches.md): the app's main screen.
  batchesList: [void, BatchSummary[]]
  batchGet: [string, BatchDetail]
  batchCreate: [BatchCreateRequest, BatchSummary]
  batchAdd: [BatchAddRequest, BatchAddResult]
  batchCancel: [BatchTarget, BatchSummary]
  batchRetry: [BatchTarget, BatchSummary]
  /** Runs the remaining files of an interrupted batch (by id); files already done stay done. */
  batchResume: [string, BatchSummary]
  batchDelete: [string, boolean]
  batchOpenOutput: [BatchTarget, OpenPathResult]
  /**
   * Results that leave the app (docs/batches.md): one written file of a done item opened with an
   * application the user chooses (the system's chooser where it has one), or shown selected in its
   * folder; the app only (`AppInfo.canOpenWith`). 404 not_found (batch, item, file), 409 conflict
   * (not done), 422 when the file is no longer a plain file (a link or a pipe put in its place).
   */
  resultOpenWith: [ResultTarget, OpenPathResult]
  resultShowInFolder: [ResultTarget, OpenPathResult]
  /** A signed address that downloads one written file (the browser app: `AppInfo.canDownload`); refusals as above. */
  resultDownload: [ResultTarget, ResultDownload]
  /** A signed address that downloads every written file of a batch as one zip, streamed (the browser app). */
  batchDownload: [string, ResultDownload]
  /**
   * Touch-up of a done file of a batch or of a watched folder (docs/touch-up.md "Touch-up"): the
   * cutout with the strokes so far at the preview's size, without running the model. 404
   * not_found (batch, folder, file, original gone), 409 conflict (not done), 422
   * validation_failed naming `hint`, `regions` or the target's field. With look-again `regions`
   * it runs the model once per new box, on its crop (docs/touch-up.md "Look again").
   */
  touchUpPreview: [TouchUpPreviewRequest, TouchUpPreview]
  /** Saves a touch-up: every output of the file replaced, the previous version kept beside it. Refusals as the preview's, and 409 conflict while one is under way. */
  touchUp: [TouchUpSaveRequest, TouchUpResult]
  /** Cancels one job (e.g. a preset preview); false when it already ended. */
  jobCancel: [string, boolean]
  /**
   * A done job's warnings about the file it gives (its main file), in the words a batch's row
   * says them ("With shadow: enlarged 3.1×: … looks soft"): what the preset editor's preview
   * shows beside its picture. [] while it runs, when it failed and when there are none; 404
   * job_not_found for an unknown job.
   */
  jobWarnings: [string, string[]]
  // The host, settings and the local listener.
  appInfo: [void, AppInfo]
  pickFolder: [void, string | null]
  settingsGet: [void, SettingsView]
  settingsSet: [SettingsPatch, SettingsView]
  // API keys (owner only over HTTP).
  keysList: [void, ApiKeyView[]]
  keysCreate: [KeyCreateRequest, { key: string; info: ApiKeyView }]
  keysRevoke: [string, ApiKeyView]
  keysCredit: [KeyCreditRequest, ApiKeyView]
  // Presets (docs/params.md): built-ins first (`builtin: true`), then the user's. Save creates or replaces;
  // bad input throws 422 validation_failed naming `name`, `description`, `params` or `params.<key>`.
  presetsList: [void, PresetInfo[]]
  presetsSave: [PresetSaveRequest, PresetInfo]
  /** True when deleted, false when there is no user preset of that name; a built-in throws 422. */
  presetsDelete: [string, boolean]
  // Watched folders (docs/watch.md). Refusals throw 422 validation_failed (details name the field) or 404 not_found.
  watchList: [void, WatchFolderView[]]
  watchAdd: [WatchAddRequest, WatchFolderView]
  watchUpdate: [WatchUpdateRequest, WatchFolderView]
  /** Takes the folder id; its output files stay. */
  watchRemove: [string, boolean]
  watchPause: [string, WatchFolderView]
  watchResume: [string, WatchFolderView]
  /** Every failed file of a folder, or one file (failed, or skipped to force it). */
  watchRetry: [WatchRetryRequest, WatchRetryResult]
  // Models: built-ins first. Refusals throw 422 validation_failed naming `file`, `name`, `as`,
  // `descriptor` or `device` (a file that does not load or match its descriptor: `file`).
  modelsList: [void, ModelInfo[]]
  modelsAdd: [ModelAddRequest, ModelAddResult]
  modelsRemove: [string, boolean]
  modelsSetDefault: [string, ModelInfo[]]
  modelsSetDevice: [string, ModelInfo[]]
  /** Runs the model once on a sample image: device and time. */
  modelsTest: [string, ModelTestRun]
  /** Studio mode: the shared queue and the workers seen (`enabled: false` in the embedded default). */
  studioWorkers: [void, StudioView]
}

/** Events pushed from main to the renderer: name → payload. */
export interface IpcEventMap {
  job: { job_id: string; status: string; progress: number }
  /** A batch's counts or progress changed. */
  batch: BatchSummary
  /** One file of a batch changed. */
  batchItem: BatchItemView
  listener: ListenerStatus
  /** The tray or menu asks to show a screen. */
  navigate: { screen: Screen }
  /** A watched folder changed (state, counts, activity); `folder` null once removed. */
  watch: WatchEvent
  /** Studio mode: a worker was seen, finished a job, or the queue's reachability changed (at most once a second). */
  workers: StudioView
}

export type IpcMethod = keyof IpcInvokeMap
export type IpcEvent = keyof IpcEventMap

/** Every invoke method, for the generic bridge (checked against the map below). */
export const IPC_METHODS = [
  'upload',
  'status',
  'batchesList',
  'batchGet',
  'batchCreate',
  'batchAdd',
  'batchCancel',
  'batchRetry',
  'batchResume',
  'batchDelete',
  'batchOpenOutput',
  'resultOpenWith',
  'resultShowInFolder',
  'resultDownload',
  'batchDownload',
  'touchUpPreview',
  'touchUp',
  'jobCancel',
  'jobWarnings',
  'appInfo',
  'pickFolder',
  'settingsGet',
  'settingsSet',
  'keysList',
  'keysCreate',
  'keysRevoke',
  'keysCredit',
  'presetsList',
  'presetsSave',
  'presetsDelete',
  'watchList',
  'watchAdd',
  'watchUpdate',
  'watchRemove',
  'watchPause',
  'watchResume',
  'watchRetry',
  'modelsList',
  'modelsAdd',
  'modelsRemove',
  'modelsSetDefault',
  'modelsSetDevice',
  'modelsTest',
  'studioWorkers'
] as const satisfies readonly IpcMethod[]
export const IPC_EVENTS = ['job', 'batch', 'batchItem', 'listener', 'navigate', 'watch', 'workers'] as const satisfies readonly IpcEvent[]

// Compile-time check that the list names every method of the map.
type Missing = Exclude<IpcMethod, (typeof IPC_METHODS)[number]>
const _allListed: Missing extends never ? true : never = true
void _allListed

/** The channel of a method or event on the wire. */
export const ipcChannel = (name: IpcMethod | IpcEvent): string => `clipdesk:${name}`

export type IpcHandlers = { [K in IpcMethod]: (arg: IpcInvokeMap[K][0]) => Promise<IpcInvokeMap[K][1]> }

/** What the preload exposes as `window.api`: exactly the contract, nothing raw. */
export type ClipdeskApi = IpcHandlers & {
  /** Subscribes to a pushed event; returns the unsubscribe function. */
  on<E extends IpcEvent>(event: E, listener: (payload: IpcEventMap[E]) => void): () => void
  /** The path on disk of a dropped or picked file (Electron's webUtils); '' when it has none. */
  pathForFile(file: File): string
  /** Starts dragging a written result out of the window into another application (the app only; Electron's startDrag). */
  startDrag(target: ResultTarget): void
}

/** The channel of `startDrag` (a send, not an invoke: the drag must start while the renderer's dragstart runs). */
export const START_DRAG_CHANNEL = 'clipdesk:startDrag'

/**
 * What main answers instead of a method's result when the handler threw: the renderer's
 * transport turns it back into an error with code, message and details (an Error thrown in
 * main reaches the renderer as a bare message).
 */
export interface IpcErrorEnvelope {
  ipcError: ErrorBody['error']
}

export function isIpcErrorEnvelope(value: unknown): value is IpcErrorEnvelope {
  return typeof value === 'object' && value !== null && 'ipcError' in value && typeof (value as IpcErrorEnvelope).ipcError === 'object'
}
