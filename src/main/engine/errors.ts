import { ERROR_STATUS, type ErrorCode, type ErrorDetail, type FailureReason } from '../../shared/errors'

/** Details kept in an error body: enough to fix a request, never megabytes of them. */
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
 * An error the API answers with: a code from the shared table, a human message and optional
 * per-field details. Thrown anywhere in the engine; mapped to `{status, body}` in one place.
 */
export class ApiError extends Error {
  readonly code: ErrorCode
  readonly details?: ErrorDetail[]
  /** Extra response headers, e.g. Retry-After for 429/503. */
  readonly headers?: Record<string, string>

  constructor(code: ErrorCode, message: string, opts: { details?: ErrorDetail[]; headers?: Record<string, string> } = {}) {
    super(message)
    this.name = 'ApiError'
    this.code = code
    this.details = opts.details && capDetails(opts.details)
    this.headers = opts.headers
  }

  get status(): number {
    return ERROR_STATUS[this.code]
  }
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
