import { randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import { ACCEPTED_MIME_TYPES, type UploadAccepted, type UploadFields } from '../../../shared/api'
import { validateUpload, type UploadRequest } from '../../../shared/upload'
import { ApiError, JobFailure } from '../errors'
import type { DataPaths } from '../paths'
import { writeFileAtomicSync } from '../paths'
import type { ResolvedEngineOptions } from '../options'
import type { Db } from '../store/db'
import type { JobStore } from '../store/jobs'
import type { KeyStore } from '../store/keys'
import type { JobParamsStore } from '../store/job-params'
import type { PresetStore } from '../store/presets'
import { resolveUploadParams } from '../params/resolve'
import { sniffImageType } from './sniff'

/** An upload as every transport hands it to the engine. */
export interface UploadInput {
  /** Text fields as they came (JSON members, multipart text parts, IPC request fields). */
  fields: UploadFields
  /** The uploaded file, if any. `mimeType` null means the transport did not declare one (IPC). */
  file?: { bytes: Buffer; mimeType: string | null; filename?: string }
  /** The API key charged for the job; null for the app's owner (IPC), who is not charged. */
  keyId: string | null
}

interface IntakeDeps {
  db: Db
  jobs: JobStore
  keys: KeyStore
  /** Presets for `params`, and where the job's resolved set is kept. */
  presets: PresetStore
  jobParams: JobParamsStore
  paths: DataPaths
  options: ResolvedEngineOptions
  /** Throws 422 `validation_failed` (`params.model`) when the set names a model the registry does not have. */
  assertKnownModel(model: string | null): void
  /**
   * Throws ApiError('unavailable') when the engine cannot take jobs now, or cannot load the
   * model the job would use (`null`: the default).
   */
  assertAvailable(model: string | null): void
  /** Type and size of an image from its header, read in the decode sandbox; throws JobFailure. */
  probe(bytes: Buffer): Promise<unknown>
}

/**
 * Refuses a file that is not an image we take, before a job exists. Only the magic bytes are
 * read here; the header (and for SVG the whole document, cleaned, with embedded images
 * counted) is read by `probe`, which runs in the decode sandbox.
 */
async function checkFile(file: NonNullable<UploadInput['file']>, probe: IntakeDeps['probe']): Promise<void> {
  if (file.mimeType !== null && !(ACCEPTED_MIME_TYPES as readonly string[]).includes(file.mimeType.toLowerCase())) {
    throw new ApiError('validation_failed', 'The file type is not supported.', {
      details: [{ field: 'file', issue: `MIME type ${file.mimeType} is not one of ${ACCEPTED_MIME_TYPES.join(', ')}` }]
    })
  }
  const type = sniffImageType(file.bytes)
  if (type === null) {
    throw new ApiError('validation_failed', 'The file is not an image of a supported type.', {
      details: [{ field: 'file', issue: 'the bytes are not a PNG, JPEG, WebP, GIF, AVIF, TIFF, PSD or SVG image' }]
    })
  }
  try {
    await probe(file.bytes)
  } catch (err) {
    if (err instanceof JobFailure && err.reason === 'image_too_large') {
      throw new ApiError('image_too_large', 'The image has more pixels than the limit.', { details: [{ field: 'file', issue: err.message }] })
    }
    const issue = err instanceof JobFailure && err.reason !== 'pipeline_crashed' ? err.message : `the ${type} image could not be read`
    throw new ApiError('validation_failed', 'The image could not be read.', { details: [{ field: 'file', issue }] })
  }
}

/**
 * Accepts a job: validates, stores the input, inserts the job and charges its credit in one
 * transaction. Returns the 202 body; throws ApiError for every refusal.
 */
export async function acceptUpload(deps: IntakeDeps, input: UploadInput): Promise<UploadAccepted> {
  const checked = validateUpload(input.fields, input.file !== undefined)
  if (!checked.ok) throw new ApiError(checked.code, checked.message, { details: checked.details })
  const request: UploadRequest = checked.value
  // A bad parameter set (or an unknown preset) is refused before a job exists; `params` also
  // applies to modes clipping and background (docs/api.md §6.3).
  const params = resolveUploadParams(deps.presets, request.mode, request.params, request.delivery_mode)
  deps.assertKnownModel(params.model)
  if (input.file) {
    if (input.file.bytes.length > deps.options.maxUploadBytes) {
      throw new ApiError('payload_too_large', `The upload is larger than ${deps.options.maxUploadBytes} bytes.`)
    }
  }
  deps.assertAvailable(params.model)
  // Credits and queue room first: a key that cannot pay never gets its file read.
  if (input.keyId !== null) {
    const key = deps.keys.get(input.keyId)
    if (key && key.credits !== null && key.credits < 1) throw insufficientCredits()
  }
  if (deps.jobs.countByStatus('queued') >= deps.options.maxQueuedJobs) {
    throw new ApiError('unavailable', 'The queue is full; try again later.', { headers: { 'Retry-After': '30' } })
  }
  if (input.file) await checkFile(input.file, deps.probe)

  const id = randomUUID()
  let inputPath: string | null = null
  if (input.file) {
    inputPath = deps.paths.upload(id)
    try {
      writeFileAtomicSync(inputPath, input.file.bytes)
    } catch (err) {
      throw new ApiError('unavailable', `The upload could not be stored: ${(err as Error).message}`, {
        headers: { 'Retry-After': '60' }
      })
    }
  }
  const accepted = deps.db.transaction(() => {
    deps.jobs.insert({
      id,
      keyId: input.keyId,
      mode: request.mode,
      outputFormat: request.output_format,
      deliveryMode: request.delivery_mode,
      params: request.params,
      sourceKind: input.file ? 'file' : 'url',
      source: input.file ? (input.file.filename ?? 'upload') : request.file_url!,
      inputPath
    })
    deps.jobParams.save(id, params)
    if (input.keyId !== null && !deps.keys.charge(input.keyId, id)) throw insufficientCredits()
    return true
  })
  try {
    accepted()
  } catch (err) {
    if (inputPath) rmSync(inputPath, { force: true })
    throw err
  }
  return { job_id: id, status: 'queued', mode: request.mode }
}

function insufficientCredits(): ApiError {
  return new ApiError('insufficient_credits', 'This API key has no credits left; a job costs 1 credit.')
}
