import type { ErrorCode, ErrorDetail, FailureReason } from '../../shared/errors'

/** Details an error keeps: enough to fix a request, never megabytes of them. */
export const MAX_ERROR_DETAILS = 20

/** The first `MAX_ERROR_DETAILS` details, plus one saying how many more there were. */
export function capDetails(details: ErrorDetail[]): ErrorDetail[] {
  if (details.length <= MAX_ERROR_DETAILS) return details
  const more = details.length - MAX_ERROR_DETAILS
  return [
    ...details.slice(0, MAX_ERROR_DETAILS),
    { field: '…', issue: `and ${more} more issue${more === 1 ? '' : 's'} of the same request` }
  ]
}

/**
 * An error with a code of the shared table (`shared/errors.ts`): the code, a human message,
 * optional per-field details and how long to wait before asking again. Thrown by the engine, the
 * features and the app API; no HTTP status nor header here: each transport maps the code to its
 * answer (`ERROR_STATUS`, `http/error-response.ts`, `app-api/answers.ts`), and adds what only it
 * knows (`http/api-error.ts`: the methods of a path, for a 405's `Allow`).
 */
export class EngineError extends Error {
  readonly code: ErrorCode
  readonly details?: ErrorDetail[]
  /** How many seconds to wait before asking again (busy, a full queue, a key's share spent, a job held). */
  readonly retryAfterSeconds?: number

  constructor(code: ErrorCode, message: string, opts: { details?: ErrorDetail[]; retryAfterSeconds?: number } = {}) {
    super(message)
    this.name = 'EngineError'
    this.code = code
    this.details = opts.details && capDetails(opts.details)
    this.retryAfterSeconds = opts.retryAfterSeconds
  }
}

/** Any thrown error as an error with a code: itself, or `internal_error` with a message that tells nothing of it. */
export function asEngineError(err: unknown): EngineError {
  return err instanceof EngineError ? err : new EngineError('internal_error', 'An unexpected error occurred.')
}

/**
 * Why a running job could not finish. Carries the reason stored on the job and shown as
 * `error.reason` by the status endpoint.
 */
export class JobFailure extends Error {
  readonly reason: FailureReason

  constructor(reason: FailureReason, message: string, opts: { cause?: unknown } = {}) {
    super(message, { cause: opts.cause })
    this.name = 'JobFailure'
    this.reason = reason
  }
}
