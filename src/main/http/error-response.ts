/**
 * A thrown error as an HTTP answer: the app API's status and body (`app-api/answers.ts`) and
 * the headers the error asks for: `Retry-After` when it says when to ask again, `Allow` when a
 * method was refused.
 */
import type { ErrorBody } from '../../shared/errors'
import { errorAnswer } from '../app-api/answers'
import { EngineError } from '../engine/errors'
import { ApiError } from './api-error'

/** The headers of an error's answer (none for most). */
export function errorHeaders(err: unknown): Record<string, string> | undefined {
  if (!(err instanceof EngineError)) return undefined
  const headers: Record<string, string> = {}
  if (err.retryAfterSeconds !== undefined) headers['Retry-After'] = String(err.retryAfterSeconds)
  if (err instanceof ApiError && err.allowedMethods) headers.Allow = err.allowedMethods.join(', ')
  return Object.keys(headers).length > 0 ? headers : undefined
}

/** Any thrown error as `{status, body, headers}`. */
export function errorResponse(err: unknown, jobId?: string): { status: number; body: ErrorBody; headers?: Record<string, string> } {
  return { ...errorAnswer(err, jobId), headers: errorHeaders(err) }
}
