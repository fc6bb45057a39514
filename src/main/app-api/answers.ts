/**
 * The app API's answers, the same for every transport: a thrown error as the API's error body
 * with the status its code has in the shared table (`shared/errors.ts`), and the engine's upload
 * and status as `{status, body}` (`shared/api.ts`). HTTP adds the headers an error asks for
 * (`http/error-response.ts`).
 */
import type { StatusResponse, UploadResponse } from '../../shared/api'
import { ERROR_STATUS, type ErrorBody } from '../../shared/errors'
import type { StatusPort, SubmitPort } from '../engine/ports'
import { EngineError, asEngineError } from '../engine/errors'
import type { UploadInput, ResultAddress } from '../engine/public'

/** The error body of any thrown error; one that is not the API's is `internal_error`, saying nothing of it. */
export function errorBody(err: unknown, jobId?: string): ErrorBody {
  const e = asEngineError(err)
  const body: ErrorBody = { error: { code: e.code, message: e.message } }
  if (e.details) body.error.details = e.details
  if (jobId) body.error.job_id = jobId
  return body
}

/** Any thrown error as `{status, body}`: the status of its code and its body. */
export function errorAnswer(err: unknown, jobId?: string): { status: number; body: ErrorBody } {
  return { status: ERROR_STATUS[asEngineError(err).code], body: errorBody(err, jobId) }
}

/** An upload: 202 with the job's id, or the refusal. */
export async function uploadAnswer(engine: SubmitPort, input: UploadInput): Promise<UploadResponse> {
  try {
    return { status: 202, body: await engine.upload(input) }
  } catch (err) {
    return errorAnswer(err)
  }
}

/**
 * A job's status: 200, or a failed or cancelled job's body with its error's status (500);
 * a job id missing, malformed or unknown is refused, naming the id given.
 */
export function statusAnswer(engine: StatusPort, jobId: unknown, address: ResultAddress): StatusResponse {
  try {
    const body = engine.status(jobId, address)
    return { status: body.error ? ERROR_STATUS[body.error.code] : 200, body }
  } catch (err) {
    if (!(err instanceof EngineError)) throw err
    return errorAnswer(err, typeof jobId === 'string' ? jobId : undefined)
  }
}
