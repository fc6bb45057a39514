import type { JobStatus } from '../../shared/api'

/**
 * Every allowed move of a job's status, in one table. A move not listed here is a bug:
 * `assertTransition` throws. Moves back to `queued` happen only when a run is interrupted
 * (process stopped or crashed) and the job is resumed.
 */
export const TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  queued: ['fetching', 'segmenting', 'failed', 'cancelled'],
  fetching: ['segmenting', 'queued', 'failed', 'cancelled'],
  segmenting: ['pending_compose', 'queued', 'failed', 'cancelled'],
  pending_compose: ['encoding', 'queued', 'failed', 'cancelled'],
  encoding: ['done', 'queued', 'failed', 'cancelled'],
  done: [],
  failed: [],
  cancelled: []
}

/** Statuses of a job that a worker was running. */
export const ACTIVE_STATUSES: readonly JobStatus[] = ['fetching', 'segmenting', 'pending_compose', 'encoding']

export class IllegalTransitionError extends Error {
  constructor(
    readonly from: JobStatus,
    readonly to: JobStatus
  ) {
    super(`illegal job transition ${from} → ${to}`)
    this.name = 'IllegalTransitionError'
  }
}

export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return TRANSITIONS[from].includes(to)
}

export function assertTransition(from: JobStatus, to: JobStatus): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to)
}
