import type { ErrorCode, ErrorDetail } from '../../shared/errors'
import { EngineError } from '../engine/errors'

/**
 * The HTTP transports' own refusal (a key, a body, a route, a method): an `EngineError`, so that
 * one mapper answers both (`error-response.ts`, with the status of the shared `ERROR_STATUS`),
 * plus what only a transport knows: the methods a path takes, said in a 405's `Allow`.
 */
export class ApiError extends EngineError {
  /** With `method_not_allowed`: the methods the path takes (`['GET', 'POST']`). */
  readonly allowedMethods?: readonly string[]

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: ErrorDetail[]; retryAfterSeconds?: number; allowedMethods?: readonly string[] } = {}
  ) {
    super(code, message, opts)
    this.name = 'ApiError'
    this.allowedMethods = opts.allowedMethods
  }
}
