/** The one mapping of a thrown error to the answer every transport gives (HTTP status, body, headers). */
import { ERROR_STATUS, type ErrorBody } from '../../shared/errors'
import { ApiError } from './errors'

/** Maps any thrown error to the `{status, body}` both transports answer with. */
export function errorResponse(err: unknown, jobId?: string): { status: number; body: ErrorBody; headers?: Record<string, string> } {
  if (err instanceof ApiError) {
    const body: ErrorBody = { error: { code: err.code, message: err.message } }
    if (err.details) body.error.details = err.details
    if (jobId) body.error.job_id = jobId
    return { status: err.status, body, headers: err.headers }
  }
  return {
    status: ERROR_STATUS.internal_error,
    body: { error: { code: 'internal_error', message: 'An unexpected error occurred.' } }
  }
}
