/**
 * Wire views of watched folders (src/shared/watch.ts) from the store, plus what only the
 * running service knows (state, files seen but not yet recorded).
 */
import type { WatchFileView, WatchFolderState, WatchFolderView } from '../../shared/watch'
import { outputDirOf, type WatchFileRecord, type WatchFolderRecord, type WatchStore } from './store'

export interface RuntimeInfo {
  state: WatchFolderState
  message: string | null
  /** Paths the service is waiting on (size settling, being read) that have no active row yet. */
  pending: string[]
}

export function fileView(store: WatchStore, f: WatchFileRecord): WatchFileView {
  const outputs = f.state === 'done' ? store.outputsOf(f.id).filter((o) => o.written && o.jobId === f.jobId).map((o) => o.path) : []
  return {
    id: f.id,
    folder_id: f.folderId,
    rel_path: f.relPath,
    state: f.state === 'submitting' ? 'waiting' : f.state,
    job_id: f.jobId,
    error: f.errorCode || f.errorMessage ? { code: f.errorCode ?? 'error', message: f.errorMessage ?? '' } : null,
    duplicate_of: f.duplicateOf,
    outputs,
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
    recent: store.recent(f.id),
    created_at: f.createdAt,
    updated_at: f.updatedAt
  }
}

/**
 * Views as a process that does not run the service sees them (the CLI): active when some
 * process holds a fresh lease, else stopped.
 */
export function offlineViews(store: WatchStore, leaseTtlMs: number): WatchFolderView[] {
  const lease = store.lease()
  const live = lease !== null && Date.now() - lease.heartbeatAt <= leaseTtlMs
  const runtime: RuntimeInfo = live
    ? { state: 'active', message: `watched by process ${lease.pid} on ${lease.host}`, pending: [] }
    : { state: 'stopped', message: 'not watched now: start the app or `clipdesk serve`', pending: [] }
  return store.folders().map((f) => folderView(store, f, runtime))
}
