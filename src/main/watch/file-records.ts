/**
 * What the watched-folders service records about one file of a folder: the decision for a
 * settled file (same, duplicate, or submit), a file gone, a symbolic link refused, a failure.
 * Store operations only; the service drives them.
 */
import { randomUUID } from 'node:crypto'
import type { Stats } from 'node:fs'
import { lstat } from 'node:fs/promises'
import { settingsHash } from './filter'
import type { WatchFileRecord, WatchFolderRecord, WatchStore } from './store'

export type Decision =
  | { kind: 'same'; row: WatchFileRecord }
  | { kind: 'skipped'; row: WatchFileRecord; duplicateOf: string }
  | { kind: 'submit'; row: WatchFileRecord; cancelJob: string | null }

/** The error code a skipped symbolic link is listed with. */
export const SYMLINK_CODE = 'symbolic_link'

export class FileRecords {
  constructor(
    private readonly store: WatchStore,
    private readonly changed: (folderId: string) => void
  ) {}

  /**
   * The decision for a settled file, in one synchronous transaction so that two files with the
   * same bytes cannot both pass the duplicate check:
   * - the row already has this content and settings → nothing changes (a touch, or a failed
   *   file that is still the same: it waits for a retry);
   * - the content was processed before with these settings, or is being processed under
   *   another name → skipped (unless a retry forces it);
   * - otherwise → submit, cancelling the job of an older version still running.
   */
  decide(folder: WatchFolderRecord, rel: string, st: Stats, hash: string, settings: string): Decision {
    return this.store.tables.transaction((): Decision => {
      const cur = this.store.fileByPath(folder.id, rel)
      if (cur && cur.state !== 'waiting' && cur.contentHash === hash && cur.settingsHash === settings) {
        this.store.patchFile(cur.id, null, { size: st.size, mtimeMs: st.mtimeMs })
        return { kind: 'same', row: this.store.file(cur.id)! }
      }
      const forced = cur?.state === 'waiting' && cur.forced
      const version = {
        size: st.size,
        mtimeMs: st.mtimeMs,
        contentHash: hash,
        settingsHash: settings,
        jobId: null,
        errorCode: null,
        errorMessage: null
      }
      if (!forced) {
        const first = this.store.processedAs(folder.id, hash, settings)
        const twin = first === null || first === rel ? this.store.inFlightTwin(folder.id, hash, settings, rel) : null
        const duplicateOf = first !== null && first !== rel ? first : (twin?.relPath ?? null)
        if (duplicateOf !== null) {
          const row = this.store.putFile(folder.id, rel, { ...version, state: 'skipped', token: null, forced: false, duplicateOf })
          return { kind: 'skipped', row, duplicateOf }
        }
      }
      const cancelJob = cur && (cur.state === 'processing' || cur.state === 'submitting') ? cur.jobId : null
      const row = this.store.putFile(folder.id, rel, {
        ...version,
        state: 'submitting',
        token: randomUUID(),
        forced: false,
        duplicateOf: null
      })
      return { kind: 'submit', row, cancelJob }
    })
  }

  /** The file went away: forget it unless it is history (done, skipped) or already with the engine. */
  gone(folder: WatchFolderRecord, row: WatchFileRecord | null): void {
    if (!row) return
    if (row.state === 'waiting' || row.state === 'failed') {
      this.store.outputs.dropUnwritten(row.id)
      this.store.deleteFile(row.id)
      this.changed(folder.id)
    }
  }

  /**
   * A symbolic link (or a file under a linked folder) is never processed: it could point
   * anywhere on the disk. Listed as failed with the reason, once per version of the link.
   */
  async refuseLink(folder: WatchFolderRecord, rel: string, abs: string, row: WatchFileRecord | null): Promise<void> {
    const st = await lstat(abs).catch(() => null)
    if (!st) return this.gone(folder, row)
    if (row?.errorCode === SYMLINK_CODE && row.size === st.size && row.mtimeMs === st.mtimeMs) return
    this.recordFailure(
      folder,
      rel,
      st,
      null,
      settingsHash(folder.request),
      SYMLINK_CODE,
      'Symbolic links are not processed: the file it points to may be outside the watched folder. Copy the file in instead.'
    )
  }

  recordFailure(
    folder: WatchFolderRecord,
    rel: string,
    st: Stats,
    hash: string | null,
    settings: string,
    code: string,
    message: string
  ): void {
    this.store.putFile(folder.id, rel, {
      size: st.size,
      mtimeMs: st.mtimeMs,
      contentHash: hash,
      settingsHash: settings,
      state: 'failed',
      jobId: null,
      token: null,
      forced: false,
      errorCode: code,
      errorMessage: message,
      duplicateOf: null
    })
    this.store.activity.add(folder.id, 'failed', rel, message)
    this.changed(folder.id)
  }
}
