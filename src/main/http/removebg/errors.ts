/**
 * Errors of the remove.bg-compatible endpoint in remove.bg's shape
 * (`{"errors":[{"title","code","detail"}]}`, docs/api.md "remove.bg compatibility"), and the
 * product's own refusals (`EngineError`) translated into it, status by status.
 */
import type { ServerResponse } from 'node:http'
import { EngineError } from '../../engine/errors'
import { ERROR_STATUS } from '../../../shared/errors'
import { errorHeaders, errorResponse } from '../error-response'
import { sendJson } from '../respond'

export interface RemoveBgErrorItem {
  title: string
  code: string
  detail?: string
}

/** A refusal of the compatible endpoint: its status and every problem found. */
export class RemoveBgError extends Error {
  constructor(
    readonly status: number,
    readonly errors: RemoveBgErrorItem[],
    readonly headers: Record<string, string> = {}
  ) {
    super(errors.map((e) => e.detail ?? e.title).join('; '))
    this.name = 'RemoveBgError'
  }
}

/** A 400 about one field. */
export function badField(code: string, detail: string, title = 'Invalid parameters'): RemoveBgError {
  return new RemoveBgError(400, [{ title, code, detail }])
}

/**
 * Our error codes as remove.bg spells them. remove.bg answers a missing or bad key with 403, a
 * file too large and an image of too many pixels with 400; the others keep their status.
 */
const FROM_API: Partial<Record<EngineError['code'], { status: number; title: string; code: string }>> = {
  unauthorized: { status: 403, title: 'Authentication failed', code: 'auth_failed' },
  forbidden: { status: 403, title: 'Authentication failed', code: 'auth_failed' },
  forbidden_host: { status: 403, title: 'Forbidden', code: 'forbidden_host' },
  insufficient_credits: { status: 402, title: 'Insufficient credits', code: 'insufficient_credits' },
  rate_limited: { status: 429, title: 'Rate limit exceeded', code: 'rate_limit_exceeded' },
  payload_too_large: { status: 400, title: 'File too large', code: 'file_too_large' },
  image_too_large: { status: 400, title: 'Resolution too high', code: 'resolution_too_high' },
  malformed_request: { status: 400, title: 'Invalid request', code: 'invalid_request' },
  missing_input: { status: 400, title: 'No image given', code: 'missing_source' },
  validation_failed: { status: 400, title: 'Invalid parameters', code: 'invalid_parameters' },
  unavailable: { status: 503, title: 'Service unavailable', code: 'unavailable' },
  not_found: { status: 404, title: 'Not found', code: 'not_found' },
  method_not_allowed: { status: 405, title: 'Method not allowed', code: 'method_not_allowed' }
}

/** Any thrown error as remove.bg's error answer. */
export function toRemoveBgError(err: unknown): RemoveBgError {
  if (err instanceof RemoveBgError) return err
  if (err instanceof EngineError) {
    const as = FROM_API[err.code]
    const detail = err.details?.length ? `${err.message} ${err.details.map((d) => `${d.field}: ${d.issue}`).join('; ')}` : err.message
    if (as) return new RemoveBgError(as.status, [{ title: as.title, code: as.code, detail }], errorHeaders(err))
    return new RemoveBgError(ERROR_STATUS[err.code], [{ title: 'Error', code: err.code, detail }], errorHeaders(err))
  }
  const { status, body } = errorResponse(err)
  return new RemoveBgError(status, [{ title: 'Internal error', code: 'internal_error', detail: body.error.message }])
}

export function sendRemoveBgError(res: ServerResponse, err: unknown, extraHeaders: Record<string, string> = {}): void {
  const e = toRemoveBgError(err)
  sendJson(res, e.status, { errors: e.errors }, { ...extraHeaders, ...e.headers })
}
