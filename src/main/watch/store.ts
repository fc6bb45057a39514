/**
 * The watch tables (the watch migrations, applied on opening): folders, per-file state and the
 * processed-content ledger; the output names given out are `outputs` (`output-records.ts`) and
 * each folder's recent activity `activity` (`activity-records.ts`). Synchronous SQLite, so that a check-then-write done in one call (or
 * one transaction) cannot interleave with another in this process.
 */
import { LIKELY_WRONG, TO_CHECK } from '../../shared/review'
import type { WatchCounts } from '../../shared/watch'
import { applyMigrations, firstRow, prepared, type Db } from '../engine/feature-tables'
import { WatchActivityLog } from './activity-records'
import { WatchOutputs } from './output-records'
import {
  toFile,
  toFolder,
  type FileDbState,
  type FileRow,
  type FolderPatch,
  type FolderRow,
  type WatchFileRecord,
  type WatchFolderRecord
} from './records'
import { WATCH_MIGRATIONS } from './schema/migrations'

export { doneDirOf, outputDirOf, type FileDbState, type OutputRecord, type WatchFileRecord, type WatchFolderRecord } from './records'

export class WatchStore {
  /** Every output name given out to the folders' files. */
  readonly outputs: WatchOutputs
  /** Each folder's recent activity. */
  readonly activity: WatchActivityLog

  constructor(readonly db: Db) {
    applyMigrations(db, WATCH_MIGRATIONS)
    this.outputs = new WatchOutputs(db)
    this.activity = new WatchActivityLog(db)
  }

  // ── folders ──────────────────────────────────────────────────────────────────────────────

  insertFolder(f: Omit<WatchFolderRecord, 'revision' | 'createdAt' | 'updatedAt'>): WatchFolderRecord {
    const now = Date.now()
    prepared(
      this.db,
      `INSERT INTO watch_folders (id, path, recursive, mode, params, output_format, output_dir, name_template, originals, paused, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
    ).run(
      f.id,
      f.path,
      f.recursive ? 1 : 0,
      f.request.mode,
      f.request.params,
      f.request.output_format,
      f.outputDir,
      f.nameTemplate,
      f.originals,
      f.paused ? 1 : 0,
      now,
      now
    )
    return this.folder(f.id)!
  }

  folder(id: string): WatchFolderRecord | null {
    return firstRow(this.db, 'SELECT * FROM watch_folders WHERE id = ?', toFolder, id)
  }

  folderByPath(path: string): WatchFolderRecord | null {
    return firstRow(this.db, 'SELECT * FROM watch_folders WHERE path = ?', toFolder, path)
  }

  folders(): WatchFolderRecord[] {
    return (prepared(this.db, 'SELECT * FROM watch_folders ORDER BY created_at, id').all() as FolderRow[]).map(toFolder)
  }

  /** Applies a change and bumps the revision, so that the running service restarts the folder's runner with it. */
  updateFolder(id: string, patch: FolderPatch): WatchFolderRecord | null {
    const cur = this.folder(id)
    if (!cur) return null
    const next = { ...cur, ...patch, request: { ...cur.request, ...patch.request } }
    prepared(
      this.db,
      `UPDATE watch_folders SET recursive = ?, mode = ?, params = ?, output_format = ?, output_dir = ?, name_template = ?,
           originals = ?, paused = ?, revision = revision + 1, updated_at = ? WHERE id = ?`
    ).run(
      next.recursive ? 1 : 0,
      next.request.mode,
      next.request.params,
      next.request.output_format,
      next.outputDir,
      next.nameTemplate,
      next.originals,
      next.paused ? 1 : 0,
      Date.now(),
      id
    )
    return this.folder(id)
  }

  deleteFolder(id: string): boolean {
    return prepared(this.db, 'DELETE FROM watch_folders WHERE id = ?').run(id).changes > 0
  }

  // ── files ────────────────────────────────────────────────────────────────────────────────

  file(id: number): WatchFileRecord | null {
    return firstRow(this.db, 'SELECT * FROM watch_files WHERE id = ?', toFile, id)
  }

  /** A file's number in its folder (`{n}`): its place in the order the folder's files arrived, from 1. */
  fileNumber(folderId: string, fileId: number): number {
    const row = prepared(this.db, 'SELECT COUNT(*) AS n FROM watch_files WHERE folder_id = ? AND id <= ?').get(folderId, fileId) as {
      n: number
    }
    return Math.max(1, Number(row.n))
  }

  fileByPath(folderId: string, relPath: string): WatchFileRecord | null {
    const row = prepared(this.db, 'SELECT * FROM watch_files WHERE folder_id = ? AND rel_path = ?').get(folderId, relPath) as
      | FileRow
      | undefined
    return row ? toFile(row) : null
  }

  fileByJob(jobId: string): WatchFileRecord | null {
    return firstRow(this.db, "SELECT * FROM watch_files WHERE job_id = ? AND state = 'processing'", toFile, jobId)
  }

  filesInState(states: FileDbState[], folderId?: string): WatchFileRecord[] {
    const marks = states.map(() => '?').join(', ')
    const sql = `SELECT * FROM watch_files WHERE state IN (${marks})${folderId ? ' AND folder_id = ?' : ''} ORDER BY id`
    return this.files(sql, ...(folderId ? [...states, folderId] : states))
  }

  /** Failed files of a folder, newest first. */
  failedFiles(folderId: string, limit = 200): WatchFileRecord[] {
    return this.files(
      "SELECT * FROM watch_files WHERE folder_id = ? AND state = 'failed' ORDER BY updated_at DESC, id DESC LIMIT ?",
      folderId,
      limit
    )
  }

  filesOf(folderId: string): WatchFileRecord[] {
    return this.files('SELECT * FROM watch_files WHERE folder_id = ? ORDER BY id', folderId)
  }

  /** Done files of a folder whose cutout is to check and not touched up since (docs/review.md), most uncertain first. */
  toCheckFiles(folderId: string, limit = 200): WatchFileRecord[] {
    return this.files(
      "SELECT * FROM watch_files WHERE folder_id = ? AND state = 'done' AND uncertainty >= ? AND touch_ups = 0 ORDER BY uncertainty DESC, id LIMIT ?",
      folderId,
      TO_CHECK,
      limit
    )
  }

  /** The latest done files of a folder, newest first (the folder's list to open one from, e.g. to touch it up). */
  doneFiles(folderId: string, limit = 50): WatchFileRecord[] {
    return this.files(
      "SELECT * FROM watch_files WHERE folder_id = ? AND state = 'done' ORDER BY updated_at DESC, id DESC LIMIT ?",
      folderId,
      limit
    )
  }

  private files(sql: string, ...args: unknown[]): WatchFileRecord[] {
    return (prepared(this.db, sql).all(...args) as FileRow[]).map(toFile)
  }

  counts(folderId: string): WatchCounts {
    const rows = prepared(
      this.db,
      `SELECT state, count(*) AS n, sum(CASE WHEN uncertainty >= ? AND touch_ups = 0 THEN 1 ELSE 0 END) AS tc,
                sum(CASE WHEN uncertainty >= ? AND touch_ups = 0 THEN 1 ELSE 0 END) AS lw, sum(CASE WHEN touch_ups > 0 THEN 1 ELSE 0 END) AS tu
           FROM watch_files WHERE folder_id = ? GROUP BY state`
    ).all(TO_CHECK, LIKELY_WRONG, folderId) as { state: FileDbState; n: number; tc: number | null; lw: number | null; tu: number | null }[]
    const c: WatchCounts = { waiting: 0, processing: 0, done: 0, skipped: 0, failed: 0, to_check: 0, likely_wrong: 0, touched_up: 0 }
    for (const r of rows) {
      c[r.state === 'submitting' ? 'waiting' : r.state] += Number(r.n)
      if (r.state !== 'done') continue
      // A touched-up file has been looked at and fixed: it leaves "to check" (src/shared/review.ts, fileReviewLevel).
      c.to_check += Number(r.tc ?? 0)
      c.likely_wrong += Number(r.lw ?? 0)
      c.touched_up += Number(r.tu ?? 0)
    }
    return c
  }

  /**
   * Creates or replaces the row of a path with the given fields (a new version of the file
   * starts over). Returns the row.
   */
  putFile(
    folderId: string,
    relPath: string,
    fields: Partial<Omit<WatchFileRecord, 'id' | 'folderId' | 'relPath' | 'createdAt' | 'updatedAt'>>
  ): WatchFileRecord {
    const now = Date.now()
    const existing = this.fileByPath(folderId, relPath)
    const base: Omit<WatchFileRecord, 'id' | 'createdAt' | 'updatedAt'> = existing ?? {
      folderId,
      relPath,
      size: null,
      mtimeMs: null,
      contentHash: null,
      settingsHash: null,
      state: 'waiting',
      jobId: null,
      token: null,
      forced: false,
      errorCode: null,
      errorMessage: null,
      duplicateOf: null,
      uncertainty: null,
      touchUps: 0,
      touchedUpAt: null
    }
    // Every put is a new version of the file (or its failure): no score and no touch-up until its own cutout is made.
    const f = { ...base, ...fields, uncertainty: fields.uncertainty ?? null }
    // The columns an update and an insert both write, in their order in both statements.
    const columns = [
      f.size,
      f.mtimeMs,
      f.contentHash,
      f.settingsHash,
      f.state,
      f.jobId,
      f.token,
      f.forced ? 1 : 0,
      f.errorCode,
      f.errorMessage,
      f.duplicateOf
    ]
    if (existing) {
      prepared(
        this.db,
        `UPDATE watch_files SET size = ?, mtime_ms = ?, content_hash = ?, settings_hash = ?, state = ?, job_id = ?, token = ?, forced = ?,
             error_code = ?, error_message = ?, duplicate_of = ?, uncertainty = ?, touch_ups = 0, touched_up_at = NULL, updated_at = ? WHERE id = ?`
      ).run(...columns, f.uncertainty, now, existing.id)
    } else {
      prepared(
        this.db,
        `INSERT INTO watch_files (folder_id, rel_path, size, mtime_ms, content_hash, settings_hash, state, job_id, token, forced,
             error_code, error_message, duplicate_of, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
      ).run(folderId, relPath, ...columns, now, now)
    }
    return this.fileByPath(folderId, relPath)!
  }

  /**
   * Updates fields of a row only while it still is as `expect` says (state and/or job), so that
   * a late answer about an old job cannot overwrite a newer version's row. Returns false when
   * the row had moved on.
   */
  patchFile(
    id: number,
    expect: { state?: FileDbState; jobId?: string | null } | null,
    fields: Partial<
      Pick<
        WatchFileRecord,
        | 'state'
        | 'jobId'
        | 'token'
        | 'forced'
        | 'errorCode'
        | 'errorMessage'
        | 'size'
        | 'mtimeMs'
        | 'uncertainty'
        | 'touchUps'
        | 'touchedUpAt'
      >
    >
  ): boolean {
    const col: Record<string, string> = {
      state: 'state',
      jobId: 'job_id',
      token: 'token',
      forced: 'forced',
      errorCode: 'error_code',
      errorMessage: 'error_message',
      size: 'size',
      mtimeMs: 'mtime_ms',
      uncertainty: 'uncertainty',
      touchUps: 'touch_ups',
      touchedUpAt: 'touched_up_at'
    }
    const sets: string[] = []
    const args: unknown[] = []
    for (const [k, v] of Object.entries(fields)) {
      sets.push(`${col[k]} = ?`)
      args.push(typeof v === 'boolean' ? (v ? 1 : 0) : v)
    }
    sets.push('updated_at = ?')
    args.push(Date.now(), id)
    let sql = `UPDATE watch_files SET ${sets.join(', ')} WHERE id = ?`
    if (expect?.state !== undefined) {
      sql += ' AND state = ?'
      args.push(expect.state)
    }
    if (expect?.jobId !== undefined) {
      sql += expect.jobId === null ? ' AND job_id IS NULL' : ' AND job_id = ?'
      if (expect.jobId !== null) args.push(expect.jobId)
    }
    return prepared(this.db, sql).run(...args).changes > 0
  }

  /**
   * Re-keys a file's row to where its original now is (moved into the done folder), so that a
   * later file arriving under the old name is a new input with a row of its own. The ledger
   * follows, so that same content arriving again is recognised as already processed.
   */
  relocateFile(id: number, newRel: string): void {
    this.db.transaction(() => {
      const row = this.file(id)
      if (!row) return
      prepared(this.db, 'UPDATE watch_files SET rel_path = ?, updated_at = ? WHERE id = ?').run(newRel, Date.now(), id)
      prepared(this.db, 'UPDATE watch_processed SET rel_path = ? WHERE folder_id = ? AND rel_path = ?').run(
        newRel,
        row.folderId,
        row.relPath
      )
    })()
  }

  deleteFile(id: number): void {
    prepared(this.db, 'DELETE FROM watch_files WHERE id = ?').run(id)
  }

  /** Another file of the folder with the same content and settings that is queued or running. */
  inFlightTwin(folderId: string, contentHash: string, settingsHash: string, exceptRel: string): WatchFileRecord | null {
    const row = prepared(
      this.db,
      `SELECT * FROM watch_files WHERE folder_id = ? AND content_hash = ? AND settings_hash = ? AND rel_path != ?
           AND state IN ('submitting', 'processing') LIMIT 1`
    ).get(folderId, contentHash, settingsHash, exceptRel) as FileRow | undefined
    return row ? toFile(row) : null
  }

  // ── processed ledger ───────────────────────────────────────────────────────────────────────

  /** The path first processed with this content and settings, or null. */
  processedAs(folderId: string, contentHash: string, settingsHash: string): string | null {
    const row = prepared(
      this.db,
      'SELECT rel_path FROM watch_processed WHERE folder_id = ? AND content_hash = ? AND settings_hash = ?'
    ).get(folderId, contentHash, settingsHash) as { rel_path: string } | undefined
    return row?.rel_path ?? null
  }

  markProcessed(folderId: string, contentHash: string, settingsHash: string, relPath: string): void {
    prepared(
      this.db,
      'INSERT OR REPLACE INTO watch_processed (folder_id, content_hash, settings_hash, rel_path, at) VALUES (?, ?, ?, ?, ?)'
    ).run(folderId, contentHash, settingsHash, relPath, Date.now())
  }
}
