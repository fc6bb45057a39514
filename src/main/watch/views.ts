/**
 * Wire views of watched folders (src/shared/watch.ts) from the store, plus what only the
 * running service knows (state, files seen but not yet recorded).
 */
import { explainProblem } from '../../shared/explain'
import type { WatchFileView, WatchFolderState, WatchFolderView } from '../../shared/watch'
import type { RunLockHolder } from '../engine/data-folder'
import { outputDirOf, type WatchFileRecord, type WatchFolderRecord, type WatchStore } from './store'

/** Processes that run watched folders while they hold the run lock (`clipdesk process` holds it too, and does not). */
const WATCHING_ROLES: readonly string[] = ['app', 'serve']

export interface RuntimeInfo {
  state: WatchFolderState
  message: string | null
  /** Paths the service is waiting on (size settling, being read) that have no active row yet. */
  pending: string[]
}

/** A stored failure text in plain words, the text itself as the detail. */
function explained(raw: string | null): { message: string; detail: string | null } {
  return explainProblem(raw)
}

export function fileView(store: WatchStore, f: WatchFileRecord): WatchFileView {
  const outputs =
    f.state === 'done'
      ? store.outputs
          .outputsOf(f.id)
          .filter((o) => o.written && o.jobId === f.jobId)
          .map((o) => o.path)
      : []
  return {
    id: f.id,
    folder_id: f.folderId,
    rel_path: f.relPath,
    state: f.state === 'submitting' ? 'waiting' : f.state,
    job_id: f.jobId,
    error: f.errorCode || f.errorMessage ? { code: f.errorCode ?? 'error', ...explained(f.errorMessage) } : null,
    duplicate_of: f.duplicateOf,
    outputs,
    uncertainty: f.state === 'done' ? f.uncertainty : null,
    touch_ups: f.touchUps,
    touched_up_at: f.touchedUpAt,
    updated_at: f.updatedAt
  }
}

export function folderView(store: WatchStore, f: WatchFolderRecord, runtime: RuntimeInfo): WatchFolderView {
  const counts = store.counts(f.id)
  if (runtime.pending.length > 0) {
    const active = new Set(store.filesInState(['waiting', 'submitting', 'processing'], f.id).map((r) => r.relPath))
    counts.waiting += runtime.pending.filter((rel) => !active.has(rel)).length
  }
  const outputDir = outputDirOf(f)
  return {
    id: f.id,
    path: f.path,
    recursive: f.recursive,
    request: { ...f.request },
    output_dir: outputDir,
    output_dir_default: f.outputDir === null,
    name_template: f.nameTemplate,
    originals: f.originals,
    paused: f.paused,
    state: f.paused ? 'paused' : runtime.state,
    state_message: f.paused ? null : runtime.message,
    counts,
    failed: store.failedFiles(f.id).map((r) => fileView(store, r)),
    to_check: store.toCheckFiles(f.id).map((r) => fileView(store, r)),
    done: store.doneFiles(f.id).map((r) => fileView(store, r)),
    // Failures are stored as they came; they are read in plain words.
    recent: store.activity.recent(f.id).map((a) => (a.kind === 'failed' ? { ...a, message: explainProblem(a.message).message } : a)),
    created_at: f.createdAt,
    updated_at: f.updatedAt
  }
}

/** What a folder shows while no service of this process runs it. */
export const STOPPED: Omit<RuntimeInfo, 'pending'> = { state: 'stopped', message: 'not watched now: start the app or `clipdesk serve`' }

/**
 * Views as a process that does not run the service sees them (the CLI): active while the app or
 * `clipdesk serve` holds the data folder's run lock (they watch the folders), else stopped.
 */
export function offlineViews(store: WatchStore, holder: RunLockHolder | null): WatchFolderView[] {
  const watching = holder !== null && WATCHING_ROLES.includes(holder.role)
  const runtime: RuntimeInfo = watching
    ? { state: 'active', message: `watched by process ${holder.pid} on ${holder.host}`, pending: [] }
    : { ...STOPPED, pending: [] }
  return store.folders().map((f) => folderView(store, f, runtime))
}
