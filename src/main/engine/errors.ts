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
 * The API's error, by code: a code from the shared table, a human message, optional per-field
 * details, how long to wait before asking again, and for a method refused the methods taken.
 * Thrown anywhere in the engine, the features and the app API; each transport says it in its
 * own terms (`app-api/answers.ts`, `http/error-response.ts`).
 */
export class ApiError extends Error {
  readonly code: ErrorCode
  readonly details?: ErrorDetail[]
  /** How many seconds to wait before asking again (busy, a full queue, a key's share spent, a job held). */
  readonly retryAfterSeconds?: number
  /** With `method_not_allowed`: the methods the path takes (`['GET', 'POST']`). */
  readonly allowedMethods?: readonly string[]

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: ErrorDetail[]; retryAfterSeconds?: number; allowedMethods?: readonly string[] } = {}
  ) {
    super(message)
    this.name = 'ApiError'
    this.code = code
    this.details = opts.details && capDetails(opts.details)
    this.retryAfterSeconds = opts.retryAfterSeconds
    this.allowedMethods = opts.allowedMethods
  }
}

/** Any thrown error as the API's error: itself, or `internal_error` with a message that tells nothing of it. */
export function asApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError('internal_error', 'An unexpected error occurred.')
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
