/** What the engine tells its observers: a job moved (status or progress). */
import type { JobStatus } from '../../shared/api'

export interface JobEvent {
  job_id: string
  status: JobStatus
  progress: number
}

/** The engine's events, by name. */
export interface EngineEvents {
  job: [JobEvent]
}
