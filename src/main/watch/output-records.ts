/**
 * Every output name a watched folder gave out (`watch_outputs`): a name planned for a file stays
 * its own until the next version of that file replaces it, and no other input ever gets it (a
 * released name, whose original was moved to `clipdesk-done`, belongs to no one and is not
 * given again). This table is the watch's storage behind the writer's `ResumeRecord`.
 */
import type { FeatureTables } from '../engine/feature-tables'
import type { ResultFile } from '../outputs/engine-jobs'
import type { ResumeRecord } from '../outputs/write'
import type { OutputRecord, WatchFileRecord } from './records'

/** macOS and Windows compare names without case: so do the records there. */
const CASE_INSENSITIVE_FS = process.platform === 'darwin' || process.platform === 'win32'

interface OutputRow {
  path: string
  folder_id: string
  file_id: number | null
  job_id: string
  variation: string
  ext: string
  written: number
}

const toOutput = (r: OutputRow): OutputRecord => ({
  path: r.path,
  folderId: r.folder_id,
  fileId: r.file_id === null ? null : Number(r.file_id),
  jobId: r.job_id,
  variation: r.variation,
  ext: r.ext,
  written: Boolean(r.written)
})

export class WatchOutputs {
  constructor(private readonly tables: FeatureTables) {}

  outputsOf(fileId: number): OutputRecord[] {
    return (this.tables.statement('SELECT * FROM watch_outputs WHERE file_id = ? ORDER BY rowid').all(fileId) as OutputRow[]).map(toOutput)
  }

  /** The record of an output path (compared without case where the file system does). */
  outputAt(path: string): OutputRecord | null {
    const sql = CASE_INSENSITIVE_FS
      ? 'SELECT * FROM watch_outputs WHERE lower(path) = lower(?)'
      : 'SELECT * FROM watch_outputs WHERE path = ?'
    const r = this.tables.statement(sql).get(path) as OutputRow | undefined
    return r ? toOutput(r) : null
  }

  putOutput(o: OutputRecord): void {
    this.tables
      .statement(
        'INSERT OR REPLACE INTO watch_outputs (path, folder_id, file_id, job_id, variation, ext, written) VALUES (?, ?, ?, ?, ?, ?, ?)'
      )
      .run(o.path, o.folderId, o.fileId, o.jobId, o.variation, o.ext, o.written ? 1 : 0)
  }

  markOutputWritten(path: string): void {
    this.tables.statement('UPDATE watch_outputs SET written = 1 WHERE path = ?').run(path)
  }

  /** Forgets planned-but-unwritten names of a file (a failed write; the next try plans again). */
  dropUnwritten(fileId: number): void {
    this.tables.statement('DELETE FROM watch_outputs WHERE file_id = ? AND written = 0').run(fileId)
  }

  /** The file no longer owns its outputs: a later input with its name gets new names. */
  releaseOutputs(fileId: number): void {
    this.tables.statement('UPDATE watch_outputs SET file_id = NULL WHERE file_id = ?').run(fileId)
  }

  /**
   * The writer's record for one file's job: the names planned for this job (a crash half-way)
   * are used again; names this file wrote (any version) are its own and may be replaced; a name
   * any other file holds, or once held, is not free.
   */
  resumeRecord(row: WatchFileRecord, results: readonly ResultFile[]): ResumeRecord {
    const jobId = row.jobId!
    return {
      planned: () => {
        const mine = this.outputsOf(row.id).filter((o) => o.jobId === jobId)
        const names = results.map((r) => mine.find((o) => o.variation === r.variation)?.path)
        return names.every((n): n is string => n !== undefined) ? names : null
      },
      ownsWritten: (path) => {
        const o = this.outputAt(path)
        return o !== null && o.fileId === row.id && o.written
      },
      heldByOther: (path) => {
        const o = this.outputAt(path)
        return o !== null && o.fileId !== row.id
      },
      plan: (paths) => {
        this.tables.transaction(() => {
          this.dropUnwritten(row.id)
          paths.forEach((path, i) => {
            const written = this.outputAt(path)?.written === true // an own earlier output keeps its mark until replaced
            this.putOutput({
              path,
              folderId: row.folderId,
              fileId: row.id,
              jobId,
              variation: results[i]!.variation,
              ext: results[i]!.ext,
              written
            })
          })
        })
      },
      wrote: (path) => this.markOutputWritten(path)
    }
  }
}
