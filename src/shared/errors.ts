/**
 * Every error code the product answers with, and the HTTP status each one maps to.
 * One table, read by HTTP and IPC alike, so both transports give the same answer.
 */
export const ERROR_STATUS = {
  malformed_request: 400,
  missing_input: 400,
  protocol_mismatch: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  forbidden: 403,
  forbidden_host: 403,
  invalid_signature: 403,
  claim_invalid: 403,
  job_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  claim_ended: 409,
  /** The thing asked for is in a state that does not allow it now (a file not done, a touch-up under way). */
  conflict: 409,
  job_held: 409,
  /** A request body arrived slower than the listener's rate floor (docs/api.md §15). */
  request_timeout: 408,
  payload_too_large: 413,
  validation_failed: 422,
  image_too_large: 422,
  rate_limited: 429,
  job_failed: 500,
  cancelled: 500,
  internal_error: 500,
  unavailable: 503
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

/**
 * Why a job failed (`error.reason` of a failed job). The status endpoint answers 500 with
 * `error.code = "job_failed"` and one of these as the reason.
 */
export const FAILURE_REASONS = [
  'fetch_blocked',
  'fetch_failed',
  'fetch_too_large',
  'fetch_timeout',
  'unsupported_image',
  'image_too_large',
  'not_implemented',
  'model_unavailable',
  'pipeline_crashed',
  'pipeline_timeout',
  'decode_timeout',
  'pipeline_error',
  'storage_error',
  'insufficient_credits',
  'result_refused'
] as const

export type FailureReason = (typeof FAILURE_REASONS)[number]

export interface ErrorDetail {
  field: string
  issue: string
}

export interface ErrorBody {
  error: {
    code: ErrorCode
    message: string
    details?: ErrorDetail[]
    /** Set on errors about one job (status endpoint). */
    job_id?: string
    /** Set when `code` is `job_failed`: the machine-readable cause. */
    reason?: FailureReason
  }
}

/** The message of a thrown value: an Error's own message, anything else as text. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
