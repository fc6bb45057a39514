import { readFile } from 'node:fs/promises'
import { ApiError, JobFailure } from '../engine/errors'
import type { PipelineStage } from '../engine/pipeline'
import type { StudioCoordinator } from './coordinator'
import type { Claim, FailureReport, ResultUpload, WorkerIdentity } from './protocol'
import { LinkError, type CoordinatorLink } from './worker'

/** The coordinator's own worker: the same protocol as a remote worker, by direct calls. */
export class LocalLink implements CoordinatorLink {
  constructor(
    private readonly coordinator: StudioCoordinator,
    private readonly identity: WorkerIdentity
  ) {}

  claim(jobId: string, signal: AbortSignal): Promise<Claim | null> {
    return this.coordinator.claim(jobId, this.identity, signal)
  }

  async input(claim: Claim): Promise<Buffer> {
    const path = this.coordinator.inputPath(claim.job_id)
    if (!path) throw new JobFailure('storage_error', 'The job has no stored input.')
    return readFile(path).catch((err: Error) => {
      throw new JobFailure('storage_error', `The stored input could not be read: ${err.message}`)
    })
  }

  async progress(jobId: string, stage: PipelineStage): Promise<void> {
    this.coordinator.progress(jobId, stage, this.identity)
  }

  async complete(jobId: string, upload: ResultUpload): Promise<boolean> {
    for (;;) {
      try {
        return await this.coordinator.complete(jobId, upload, this.identity)
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 'unavailable')) throw err
        await new Promise((r) => setTimeout(r, 1000))
      }
    }
  }

  async fail(jobId: string, report: FailureReport): Promise<void> {
    this.coordinator.fail(jobId, report, this.identity)
  }
}

