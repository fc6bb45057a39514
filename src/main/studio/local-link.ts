/**
 * The coordinator's own worker: it claims through the same table as a remote worker (so the
 * two never run one job at once), and then runs the job on the job's record directly, as the
 * local scheduler does: the input is read from its file, the results are written from the
 * memory they were made in, and the model session goes back to the engine's pool.
 */
import { EngineError } from '../engine/errors'
import { HostUnavailable, type RunHost } from '../engine/public-run'
import type { WorkerIdentity } from './protocol'
import type { StudioRuns } from './runs'
import type { ClaimedJob, CoordinatorLink } from './worker'

export class LocalLink implements CoordinatorLink {
  constructor(
    private readonly runs: StudioRuns,
    private readonly identity: WorkerIdentity
  ) {}

  async claim(jobId: string, signal: AbortSignal): Promise<ClaimedJob | null> {
    let answer
    try {
      answer = await this.runs.claim(jobId, this.identity, { local: true, signal })
    } catch (err) {
      if (err instanceof EngineError && err.code === 'job_held') throw new HostUnavailable(err.message, (err.retryAfterSeconds ?? 1) * 1000)
      throw err
    }
    if (!answer.claimed) return null
    const { lease, plan } = answer.claimed
    const { run } = lease
    const host: RunHost = {
      input: (s) => run.input(s),
      // The hint and look-again boxes stay with the upload: this worker is the one that may apply them.
      hint: () => run.hint(),
      regions: () => run.regions(),
      stage: (stage) => run.stage(stage),
      admit: (params, size) => run.admit(params, size),
      complete: (result) => this.runs.complete(lease, result),
      end: (ending) => run.end(ending),
      close: () => this.runs.release(lease)
    }
    return { plan, host, waitedMs: () => 0 }
  }
}
