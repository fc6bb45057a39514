import type { JobParams } from '../../../shared/params-types'
import type { Db } from './db'
import { prepared } from './statements'

/**
 * The parameter set each job was accepted with (resolved at upload, mode defaults and presets
 * applied). Deleted with its job.
 */
export class JobParamsStore {
  constructor(private readonly db: Db) {}

  /** Call inside the transaction that inserts the job. */
  save(jobId: string, params: JobParams): void {
    prepared(this.db, 'INSERT OR REPLACE INTO job_params (job_id, resolved) VALUES (?, ?)').run(jobId, JSON.stringify(params))
  }

  get(jobId: string): JobParams | null {
    const row = prepared(this.db, 'SELECT resolved FROM job_params WHERE job_id = ?').get(jobId) as { resolved: string } | undefined
    return row ? (JSON.parse(row.resolved) as JobParams) : null
  }
}
