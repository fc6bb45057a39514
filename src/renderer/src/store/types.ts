/**
 * The store's shape: each slice's state and actions, the whole they make, and the creator type
 * a slice is written as. The slices' files import these and hold the behaviour; nothing here
 * imports a slice, so no file of the store loops back.
 */
import type { StateCreator } from 'zustand'
import type { Mode, OutputFormat } from '../../../shared/api'
import type { ApiKeyView, AppInfo, KeyCreateRequest, ListenerStatus, Screen, SettingsPatch, SettingsView } from '../../../shared/app'
import type { BatchItemView, BatchSummary } from '../../../shared/batches'
import type { IpcEventMap } from '../../../shared/ipc'
import type { PresetInfo, PresetSaveRequest } from '../../../shared/presets'
import type { StudioView } from '../../../shared/studio'
import type { TouchUpResult, TouchUpTarget } from '../../../shared/touchup'
import type { WatchAddRequest, WatchEvent, WatchFolderView, WatchUpdateRequest } from '../../../shared/watch'
import type { Edit } from '../lib/brush'
import type { PickedFile } from '../lib/files'
import type { ListFilter, ListSort } from '../lib/review'

/** The one store, made of slices (zustand's slices pattern). */
export type StoreState = SessionSlice & UiSlice & BatchSlice & PresetsSlice & ApiSlice & WatchSlice & TouchUpSlice

/** A slice: sees (and may set) the whole store. */
export type Slice<T> = StateCreator<StoreState, [], [], T>

/**
 * How the renderer is connected: `ready` with the app (IPC) at once; in a browser after an
 * owner key was entered (kept in localStorage) and accepted by the server.
 */
export interface SessionSlice {
  connection: 'starting' | 'needsKey' | 'ready'
  /** Why the key was refused, shown on the connect screen. */
  connectError: string | null
  appInfo: AppInfo | null
  /** The server's event stream is (re)connected; false while it is down (browser). */
  eventsLive: boolean
}

export type Theme = 'system' | 'light' | 'dark'

export interface UiSlice {
  screen: Screen
  theme: Theme
  /** The batch list's filter and order ("To check", most uncertain first: docs/review.md). */
  listFilter: ListFilter
  listSort: ListSort
  setScreen(screen: Screen): void
  setTheme(theme: Theme): void
  setListView(view: { filter?: ListFilter; sort?: ListSort }): void
}

export interface StagedFile extends PickedFile {
  id: string
}

/** What the next batch will do; `preset` set means mode `params` with that preset. */
export interface BatchDraft {
  name: string
  preset: string
  mode: Extract<Mode, 'clipping' | 'background'>
  output_format: OutputFormat
  destination: string
  /** Write every variation of each photo, not only the primary. */
  all_variations: boolean
  /** Output names (tokens as for watched folders); empty for the default. */
  name_template: string
}

export interface BatchSlice {
  /** Files dropped or picked, not yet started. */
  staged: StagedFile[]
  draft: BatchDraft
  batches: BatchSummary[]
  currentBatchId: string | null
  /** Items of the current batch, in batch order. */
  items: BatchItemView[]
  /** Item id → index in `items`. */
  itemPos: Record<string, number>
  /** While a batch is being handed over: files sent so far. */
  starting: { sent: number; total: number } | null
  /** The last error of a batch action, shown on the batches screen. */
  batchError: string | null
  /** Why the destination cannot be used (plain words, and the system's text), shown under its field. */
  destinationProblem: { message: string; detail: string | null } | null
  /** Files the last start could not add, with why. */
  refused: Array<{ rel_path: string; error: string }>
  /** Where the output is, when the host cannot open folders (browser). */
  outputNotice: string | null
  /** Item shown in the before/after view. */
  viewerItemId: string | null
  /** Item whose problem is shown in full (plain words and the text behind them). */
  problemItemId: string | null

  stage(files: PickedFile[]): void
  unstage(id: string): void
  clearStaged(): void
  setDraft(patch: Partial<BatchDraft>): void
  setViewer(itemId: string | null): void
  setProblem(itemId: string | null): void
  dismissBatchMessages(): void
  applyBatch(summary: BatchSummary): void
  applyItem(item: BatchItemView): void
  loadBatches(): Promise<void>
  openBatch(id: string | null): Promise<void>
  startBatch(): Promise<void>
  cancelBatch(itemId?: string): Promise<void>
  retryBatch(itemId?: string): Promise<void>
  /** Runs the remaining files of the current batch after the app stopped under it. */
  resumeBatch(): Promise<void>
  openOutput(itemId?: string): Promise<void>
  removeBatch(id: string): Promise<void>
}

export interface PresetPreview {
  jobId: string | null
  status: 'idle' | 'running' | 'done' | 'failed'
  progress: number
  /** The result (primary variation) to show. */
  url: string | null
  /** What the same job gives a batch's row about its main file ("With shadow: enlarged 3.1×: … looks soft"). */
  warnings: string[]
  error: string | null
}

export interface PresetsSlice {
  presets: PresetInfo[] | null
  presetsError: string | null
  preview: PresetPreview
  loadPresets(): Promise<void>
  /** Saves; on a refusal throws the AppError (its details name the offending keys, shown in the form). */
  savePreset(req: PresetSaveRequest): Promise<void>
  deletePreset(name: string): Promise<void>
  /** Runs `params` on the sample image as a real job (mode params, PNG) and shows its result. */
  runPreview(params: string, sample: Blob): Promise<void>
  applyPreviewJob(e: IpcEventMap['job']): Promise<void>
}

/** The API screen and settings: the local listener, keys and their credits. */
export interface ApiSlice {
  settings: SettingsView | null
  settingsError: string | null
  keys: ApiKeyView[] | null
  keysError: string | null
  /** A key just created: its secret is shown once, until dismissed. */
  createdKey: { key: string; info: ApiKeyView } | null
  /** Studio mode: the shared queue and its workers (pushed live as they change). */
  studio: StudioView | null
  studioError: string | null

  loadSettings(): Promise<void>
  saveSettings(patch: SettingsPatch): Promise<boolean>
  applyListener(listener: ListenerStatus): void
  loadKeys(): Promise<void>
  createKey(req: KeyCreateRequest): Promise<boolean>
  revokeKey(id: string): Promise<void>
  addCredits(id: string, add: number | null): Promise<void>
  dismissCreatedKey(): void
  loadStudio(): Promise<void>
  applyStudio(view: StudioView): void
}

/**
 * Watched folders (docs/watch.md): the list with each folder's state, counts, failed files and
 * recent activity, kept current by the pushed `watch` event.
 */
export interface WatchSlice {
  /** null until loaded. */
  watchFolders: WatchFolderView[] | null
  watchError: string | null
  loadWatch(): Promise<void>
  /** Adds a folder; on a refusal throws the AppError (its details name the fields, shown in the form). */
  addWatch(request: WatchAddRequest): Promise<WatchFolderView>
  /** Changes a folder's settings; throws the AppError on a refusal, like `addWatch`. */
  updateWatch(request: WatchUpdateRequest): Promise<WatchFolderView>
  removeWatch(id: string): Promise<void>
  setWatchPaused(id: string, paused: boolean): Promise<void>
  /** Every failed file of the folder, or one file (failed, or skipped to force it). */
  retryWatch(folderId: string, fileId?: number): Promise<void>
  applyWatchEvent(e: WatchEvent): void
}

/** The touch-up editor of one done file of a batch or a watched folder (docs/touch-up.md "Touch-up"). */
export interface TouchUpState {
  target: TouchUpTarget
  /** Names the file (`touchUpKey`): answers for another file opened since are dropped. */
  key: string
  name: string
  /** The input's upright size (Save's hint) and the preview's (each stroke's hint). */
  size: { width: number; height: number } | null
  preview: { width: number; height: number } | null
  /** data: addresses of the photo and of the cutout with the strokes so far, at the preview's size. */
  photo: string | null
  cutout: string | null
  /** Strokes and look-again boxes, in the order they were made (one undo list). */
  strokes: Edit[]
  /** Edits undone, the last undone last: redo takes them back. */
  undone: Edit[]
  /** A preview is being made for the strokes as they are. */
  updating: boolean
  /** That preview runs the model on a look-again box not previewed before (about a second). */
  looking: boolean
  /** Milliseconds the last preview took in the app. */
  lastMs: number | null
  saving: boolean
  saved: TouchUpResult | null
  error: string | null
}

export interface TouchUpSlice {
  touchUp: TouchUpState | null
  openTouchUp(target: TouchUpTarget, name: string): Promise<void>
  closeTouchUp(): void
  addStroke(edit: Edit): void
  undoStroke(): void
  redoStroke(): void
  saveTouchUp(): Promise<void>
}
