/**
 * Studio mode as the app and `GET /api/v1/studio/workers` show it: the workers the
 * coordinator has seen, and whether the shared queue (Redis) answers.
 */

/** A worker as the coordinator saw it. */
export interface WorkerInfo {
  /** `--name`, by default `<host name>:<pid>`; the coordinator's own worker is `<host> (coordinator)`. */
  name: string
  device: string
  jobs_done: number
  busy_ms: number
  /** Jobs per hour while busy (from busy time), null before the first job. */
  jobs_per_hour: number | null
  first_seen: number
  last_seen: number
}

export interface StudioView {
  /** False in the embedded default (no shared queue): nothing else is set then. */
  enabled: boolean
  /** The queue's address without its password; null when not in studio mode. */
  queue: string | null
  /** Whether Redis answered at the last check; null when not in studio mode. */
  queue_available: boolean | null
  workers: WorkerInfo[]
}
