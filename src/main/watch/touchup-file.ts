/**
 * A done file of a watched folder as the touch-up sees it (`touchup/touchups.ts`;
 * docs/touch-up.md "Touch-up"): its job, its stored input (else the file in the folder, while it
 * still has the content that was processed), the folder's request, its written outputs. The
 * touch-up is recorded on the file (`touch_ups`, `touched_up_at`, the new job, which its
 * outputs now belong to), the previous versions as names given out (never given to another
 * input), and in the folder's activity.
 *
 * The outputs are replaced in the output folder, which the folder's own watcher never reads
 * (it is excluded, or outside the folder); another watched folder that takes this one's
 * outputs as its inputs sees the replaced file as a new version, and passes over the kept
 * previous ones (`filter.ts`).
 */
import { join, posix } from 'node:path'
import { writesAllVariations } from '../../shared/outputs'
import type { TouchUpTarget } from '../../shared/touchup'
import { EngineError } from '../engine/errors'
import { relativeName } from '../outputs/paths'
import type { TouchUpFile } from '../touchup/touchups'
import { settingsHash } from './filter'
import { containmentRoot } from './placement'
import { outputDirOf, type WatchStore } from './store'

export interface WatchTouchUpDeps {
  store: WatchStore
  /** A folder's view changed. */
  changed(folderId: string): void
}

/** The done file a target names; 404 for an unknown folder or file, 409 for a file that is not done (or about to be made again). */
export function watchTouchUpFile(d: WatchTouchUpDeps, target: Extract<TouchUpTarget, { kind: 'watch' }>): TouchUpFile {
  const { store } = d
  const folder = store.folder(target.folder_id)
  if (!folder) throw new EngineError('not_found', `No watched folder "${target.folder_id}".`)
  const row = store.file(target.file_id)
  if (!row || row.folderId !== folder.id) throw new EngineError('not_found', `No file ${target.file_id} in watched folder ${folder.id}.`)
  const jobId = row.jobId
  const outputs = row.state === 'done' && jobId ? store.outputs.outputsOf(row.id).filter((o) => o.written && o.jobId === jobId) : []
  if (row.state !== 'done' || !jobId || outputs.length === 0) throw new EngineError('conflict', 'Only a done file can be touched up.')
  const settings = settingsHash(folder.request)
  // The folder's settings changed since: the file is made again with them, which would undo the touch-up.
  if (row.settingsHash !== settings)
    throw new EngineError('conflict', "The folder's settings changed since this file was made; it is made again with them.")
  const outDir = outputDirOf(folder)
  return {
    key: `watch:${row.id}`,
    jobId,
    source: row.contentHash ? { path: join(folder.path, ...row.relPath.split('/')), sha256: row.contentHash } : null,
    filename: posix.basename(row.relPath),
    request: folder.request,
    allVariations: writesAllVariations(folder.request.params, false),
    outputs: outputs.map((o) => o.path),
    root: containmentRoot(folder, outDir),
    unchanged() {
      const now = store.file(row.id)
      const f = store.folder(folder.id)
      return now !== null && f !== null && now.state === 'done' && now.jobId === jobId && now.settingsHash === settingsHash(f.request)
    },
    record({ jobId: newJob, previous }) {
      const touchUps = row.touchUps + 1
      store.tables.transaction(() => {
        // A new version of the file arrived while the results were replaced: its own job writes them next.
        if (!store.patchFile(row.id, { state: 'done', jobId }, { jobId: newJob, touchUps, touchedUpAt: Date.now() })) return
        // The outputs are the new job's now (the file's view lists its current job's outputs).
        for (const o of outputs) store.outputs.putOutput({ ...o, jobId: newJob })
        // A kept previous version is a name given out: no other input's result gets it.
        previous.forEach((path, i) => {
          if (path) store.outputs.putOutput({ ...outputs[i]!, path, fileId: null, written: true })
        })
        const kept = previous.filter(Boolean).map((p) => relativeName(outDir, p))
        const names = outputs.map((o) => relativeName(outDir, o.path)).join(', ')
        store.activity.add(
          folder.id,
          'touched_up',
          row.relPath,
          `→ ${names} replaced${kept.length ? ` (previous kept as ${kept.join(', ')})` : ''}`
        )
      })
      d.changed(folder.id)
      return touchUps
    }
  }
}
