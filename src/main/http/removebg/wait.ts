/**
 * The synchronous half of the endpoint: the request waits for its job's end (the features' one
 * waiter, `JobEnds`), and a client that goes away cancels the job (its credits are refunded as for
 * any cancelled job).
 */
import type { ServerResponse } from 'node:http'
import type { JobWaitPort } from '../../engine/ports'
import type { JobRecord } from '../../engine/ports'
import { JobEnds } from '../../outputs/engine-jobs'

/** Resolves with the job's record once it ended; cancels it when `res` closes first. */
export async function waitForEnd(engine: JobWaitPort, jobId: string, res: ServerResponse): Promise<JobRecord> {
  const onClose = (): void => {
    // The answer was not sent: nobody is waiting for this job any more.
    if (!res.writableFinished) engine.cancel(jobId)
  }
  res.on('close', onClose)
  const ends = new JobEnds(engine)
  try {
    // The client may have gone between the upload and the subscription (a job that ended is not cancelled).
    if (!res.socket || res.socket.destroyed) engine.cancel(jobId)
    await ends.wait(jobId)
  } finally {
    ends.close()
    res.off('close', onClose)
  }
  const job = engine.job(jobId)
  // Jobs are swept only long after their end: a job gone while it was awaited is a fault of ours.
  if (!job) throw new Error(`job ${jobId} vanished while its request waited`)
  return job
}
