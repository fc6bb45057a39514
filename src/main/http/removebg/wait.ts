/**
 * The synchronous half of the endpoint: the request waits for its job's end, and a client that
 * goes away cancels the job (its credits are refunded as for any cancelled job).
 */
import type { ServerResponse } from 'node:http'
import type { JobStatus } from '../../../shared/api'
import type { JobEvent } from '../../engine/events'
import type { JobRecord, JobWaitPort } from '../../engine/ports'

const ENDED: ReadonlySet<JobStatus> = new Set(['done', 'failed', 'cancelled'])

/** Resolves with the job's record once it ended; cancels it when `res` closes first. */
export function waitForEnd(engine: JobWaitPort, jobId: string, res: ServerResponse): Promise<JobRecord> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      const job = engine.job(jobId)
      if (!job || !ENDED.has(job.status)) return false
      finish(job)
      return true
    }
    const onJob = (e: JobEvent): void => {
      if (e.job_id === jobId && ENDED.has(e.status)) check()
    }
    const onClose = (): void => {
      // The answer was not sent: nobody is waiting for this job any more.
      if (!res.writableFinished) engine.cancel(jobId)
    }
    const finish = (job: JobRecord): void => {
      engine.off('job', onJob)
      res.off('close', onClose)
      resolve(job)
    }
    engine.on('job', onJob)
    res.on('close', onClose)
    // It may have ended between the upload and the subscription, or the client may have gone already.
    if (!check() && (!res.socket || res.socket.destroyed)) engine.cancel(jobId)
  })
}
