import { randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import type { UploadAccepted, UploadFields } from '../../../shared/api'
import { ACCEPTED_MIME_TYPES } from '../../../shared/image-types'
import { explainProblem } from '../../../shared/explain'
import { EngineError, JobFailure } from '../errors'
import type { DataPaths } from '../paths'
import { writeFileAtomic } from '../file-helpers'
import type { ResolvedEngineOptions } from '../options'
import type { Db } from '../store/db'
import type { JobStore } from '../store/jobs'
import type { KeyStore } from '../store/keys'
import type { JobParamsStore } from '../store/job-params'
import type { PresetStore } from '../store/presets'
import { resolveUpload } from '../params/resolve'
import { checkRegions } from './regions'
import { creditsFor, outputBound, regionCredits, secondLookCredits } from '../params/output-budget'
import { OUTPUT_LIMITS, overLimit, type OutputBound } from '../pipeline/compose/output-limits'
import type { JobParams } from '../../../shared/params-types'
import { HINT_TYPES } from '../pipeline/guide/hint'
import { sniffImageType } from '../pipeline/decode/sniff'
import { SandboxStartFailure } from '../sandbox/fork'
import { errorText } from '../../../shared/errors'

/** An upload as every transport hands it to the engine. */
export interface UploadInput {
  /** Text fields as they came (JSON members, multipart text parts, IPC request fields). */
  fields: UploadFields
  /** The uploaded file, if any. `mimeType` null means the transport did not declare one (IPC). */
  file?: { bytes: Buffer; mimeType: string | null; filename?: string }
  /**
   * The optional hint image (docs/touch-up.md "Hints"): only with `file`. Its declared type is
   * never trusted: its bytes are sniffed and its header read in the sandbox.
   */
  hint?: { bytes: Buffer }
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
  /** Throws `validation_failed` (`params.model`) when the set names a model the registry does not have. */
  assertKnownModel(model: string | null): void
  /**
   * Throws EngineError('unavailable') when the engine cannot take jobs now, or cannot load the
   * model the job would use (`null`: the default).
   */
  assertAvailable(model: string | null): void
  /** Type and upright size of an image from its header, read in the decode sandbox; throws JobFailure. */
  probe(bytes: Buffer): Promise<{ width: number; height: number }>
}

/**
 * Refuses a file that is not an image we take, before a job exists; gives its upright size.
 * Only the magic bytes are read here; the header (and for SVG the whole document, cleaned, with
 * embedded images counted) is read by `probe`, which runs in the decode sandbox.
 */
async function checkFile(file: NonNullable<UploadInput['file']>, probe: IntakeDeps['probe']): Promise<{ width: number; height: number }> {
  // `application/octet-stream` says "bytes of some kind" (what curl and many clients send for a
  // file they do not know): not a claim to check, the bytes are sniffed either way.
  const declared = file.mimeType?.toLowerCase() ?? null
  if (declared !== null && declared !== 'application/octet-stream' && !ACCEPTED_MIME_TYPES.includes(declared)) {
    throw new EngineError('validation_failed', 'The file type is not supported.', {
      details: [{ field: 'file', issue: `MIME type ${file.mimeType} is not one of ${ACCEPTED_MIME_TYPES.join(', ')}` }]
    })
  }
  const type = sniffImageType(file.bytes)
  if (type === null) {
    throw new EngineError('validation_failed', 'The file is not an image of a supported type.', {
      details: [{ field: 'file', issue: 'the bytes are not a PNG, JPEG, WebP, GIF, AVIF, TIFF, PSD or SVG image' }]
    })
  }
  try {
    return await probe(file.bytes)
  } catch (err) {
    if (err instanceof SandboxStartFailure) throw cannotStart(err)
    if (err instanceof JobFailure && err.reason === 'image_too_large') {
      throw new EngineError('image_too_large', 'The image has more pixels than the limit.', {
        details: [{ field: 'file', issue: err.message }]
      })
    }
    const issue = err instanceof JobFailure && err.reason !== 'pipeline_crashed' ? err.message : `the ${type} image could not be read`
    // In plain words when there are some for the decoder's text ("This JPEG is damaged: its header
    // cannot be read"), as the app says it; the decoder's text stays under details.
    const plain = explainProblem(issue, 'input')
    throw new EngineError('validation_failed', plain.detail ? `${plain.message}.` : 'The image could not be read.', {
      details: [{ field: 'file', issue }]
    })
  }
}

/** The sandbox could not be started to read the file (out of descriptors or processes): the server's trouble, not the file's. */
function cannotStart(err: SandboxStartFailure): EngineError {
  return new EngineError('unavailable', `The server cannot read images now: ${err.message}; try again shortly.`, { retryAfterSeconds: 5 })
}

/** Refuses a hint that cannot be one before anything is read: without a file, or over the upload limit. */
function checkHintBytes(bytes: Buffer, withFile: boolean, maxBytes: number): void {
  if (!withFile) {
    throw new EngineError('validation_failed', 'A hint goes with an uploaded image.', {
      details: [{ field: 'hint', issue: 'a hint is taken only with the image in the part "file", not with file_url' }]
    })
  }
  if (bytes.length > maxBytes) {
    throw new EngineError('payload_too_large', `The hint is larger than ${maxBytes} bytes.`, {
      details: [{ field: 'hint', issue: `over ${maxBytes} bytes` }]
    })
  }
}

/**
 * Refuses a hint that is not a PNG, JPEG or WebP image (sniffed: a declared type is not
 * trusted) of the image's upright size (its header, read in the decode sandbox).
 */
async function checkHint(bytes: Buffer, image: { width: number; height: number }, probe: IntakeDeps['probe']): Promise<void> {
  const refuse = (issue: string): EngineError =>
    new EngineError('validation_failed', 'The hint cannot be used.', { details: [{ field: 'hint', issue }] })
  const type = sniffImageType(bytes)
  if (type === null || !HINT_TYPES.includes(type)) throw refuse('the bytes are not a PNG, JPEG or WebP image')
  let size: { width: number; height: number }
  try {
    size = await probe(bytes)
  } catch (err) {
    if (err instanceof SandboxStartFailure) throw cannotStart(err)
    throw refuse(err instanceof JobFailure && err.reason !== 'pipeline_crashed' ? err.message : `the ${type} hint could not be read`)
  }
  if (size.width !== image.width || size.height !== image.height) {
    throw refuse(`the hint is ${size.width}×${size.height}; it must be the image's size after orientation, ${image.width}×${image.height}`)
  }
}

/**
 * Refuses outputs over the limits (docs/api.md §15), as far as they are known: from the set
 * alone (a `<W>x<H>` canvas), or with the input's size once the file was probed.
 */
function checkOutputs(params: JobParams, input: { width: number; height: number } | null): OutputBound {
  const bound = outputBound(params, input)
  const over = overLimit(bound)
  if (over) {
    const field =
      bound.canvas && bound.canvas.width * bound.canvas.height > OUTPUT_LIMITS.variationPixels ? 'params.size' : 'params.variations'
    throw new EngineError('validation_failed', 'The outputs this request asks for are over the limits.', {
      details: [{ field, issue: over }]
    })
  }
  return bound
}

/**
 * Room in the queue: the whole queue (`unavailable`), and this key's share of it (`rate_limited`), so that one key
 * cannot take every slot and keep every other key out. The machine's owner is not rationed:
 * the desktop app (no key) and owner keys, with which the app runs in a browser, the same way.
 */
function assertRoom(deps: Pick<IntakeDeps, 'jobs' | 'keys' | 'options'>, keyId: string | null): void {
  if (deps.jobs.countByStatus('queued') >= deps.options.maxQueuedJobs) {
    throw new EngineError('unavailable', 'The queue is full; try again later.', { retryAfterSeconds: 30 })
  }
  const share = deps.options.maxQueuedJobsPerKey
  if (keyId !== null && !deps.keys.get(keyId)?.admin && deps.jobs.countQueuedForKey(keyId) >= share) {
    throw new EngineError(
      'rate_limited',
      `This API key already has ${share.toLocaleString('en-US')} jobs waiting, the most one key may have; wait for some to start.`,
      {
        retryAfterSeconds: 30
      }
    )
  }
}

/** The key's balance when it is below `cost` (null: unlimited or enough). */
function shortOf(deps: Pick<IntakeDeps, 'keys'>, keyId: string | null, cost: number): number | null {
  if (keyId === null) return null
  const key = deps.keys.get(keyId)
  return key && key.credits !== null && key.credits < cost ? key.credits : null
}

/**
 * What a key must have before anything of its upload is read: a credit (`insufficient_credits`)
 * and room in the queue (`unavailable`, `rate_limited`). Checked by the HTTP listener before it reserves any bytes for the body, so
 * that a key that could not start a job never holds the upload budget, and again at acceptance.
 */
export function admitKey(deps: Pick<IntakeDeps, 'jobs' | 'keys' | 'options'>, keyId: string | null): void {
  const broke = shortOf(deps, keyId, 1)
  if (broke !== null) throw insufficientCredits({ outputs: 1, boxes: 0, look: 0 }, broke)
  assertRoom(deps, keyId)
}

/**
 * Accepts a job: validates, stores the input, inserts the job and charges what its outputs
 * cost (docs/api.md §3) in one transaction. Returns the job's id; throws EngineError for every
 * refusal.
 */
export async function acceptUpload(deps: IntakeDeps, input: UploadInput): Promise<UploadAccepted> {
  // The fields checked and the parameter set resolved: a bad set (or an unknown preset, or a key
  // the explicit mode cannot apply) is refused before a job exists (docs/api.md §6.3).
  const { request, params } = resolveUpload(deps.presets, input.fields, input.file !== undefined)
  deps.assertKnownModel(params.model)
  checkOutputs(params, null)
  if (input.file) {
    if (input.file.bytes.length > deps.options.maxUploadBytes) {
      throw new EngineError('payload_too_large', `The upload is larger than ${deps.options.maxUploadBytes} bytes.`)
    }
  }
  if (input.hint) checkHintBytes(input.hint.bytes, input.file !== undefined, deps.options.maxUploadBytes)
  deps.assertAvailable(params.model)
  // Credits and queue room first: a key that cannot pay, or has no room, never gets its file read.
  admitKey(deps, input.keyId)
  const size = input.file ? await checkFile(input.file, deps.probe) : null
  if (input.hint && size) await checkHint(input.hint.bytes, size, deps.probe)
  const regions = request.regions && size ? checkRegions(request.regions, size) : null
  const cost: JobCost = {
    outputs: creditsFor(checkOutputs(params, size).pixels),
    boxes: regions && size ? regionCredits(regions, size) : 0,
    look: secondLookCredits(params)
  }
  const total = cost.outputs + cost.boxes + cost.look
  const short = shortOf(deps, input.keyId, total)
  if (short !== null) throw insufficientCredits(cost, short)

  const id = randomUUID()
  let inputPath: string | null = null
  const hintPath = deps.paths.hint(id)
  const regionsPath = deps.paths.regions(id)
  if (input.file) {
    inputPath = deps.paths.upload(id)
    try {
      // Written off the event loop: a 50 MB photo written at once held every other request.
      await writeFileAtomic(inputPath, input.file.bytes)
      if (input.hint) await writeFileAtomic(hintPath, input.hint.bytes)
      if (regions) await writeFileAtomic(regionsPath, Buffer.from(JSON.stringify(regions)))
    } catch (err) {
      rmSync(inputPath, { force: true })
      rmSync(hintPath, { force: true })
      throw new EngineError('unavailable', `The upload could not be stored: ${errorText(err)}`, {
        retryAfterSeconds: 60
      })
    }
  }
  const accepted = deps.db.transaction(() => {
    // Again inside the transaction: other uploads were accepted while this file was probed.
    assertRoom(deps, input.keyId)
    deps.jobs.insert({
      id,
      keyId: input.keyId,
      mode: request.mode,
      // A store preset writes the format the store takes unless the request named one (docs/params.md "format").
      outputFormat: request.formatGiven ? request.output_format : (params.format ?? request.output_format),
      deliveryMode: request.delivery_mode,
      params: request.params,
      sourceKind: input.file ? 'file' : 'url',
      source: input.file ? (input.file.filename ?? 'upload') : request.file_url!,
      inputPath
    })
    deps.jobParams.save(id, params)
    // The boxes' credits with the outputs', in the one charge: the job is refunded as one.
    if (input.keyId !== null && !deps.keys.charge(input.keyId, id, total))
      throw insufficientCredits(cost, shortOf(deps, input.keyId, total) ?? 0)
    return true
  })
  try {
    accepted()
  } catch (err) {
    if (inputPath) rmSync(inputPath, { force: true })
    rmSync(hintPath, { force: true })
    rmSync(regionsPath, { force: true })
    throw err
  }
  return { job_id: id, status: 'queued', mode: request.mode }
}

/** What a job is charged (docs/api.md §3): for its outputs, its look-again boxes and a forced second look. */
interface JobCost {
  outputs: number
  boxes: number
  look: number
}

function insufficientCredits(cost: JobCost, balance: number): EngineError {
  const total = cost.outputs + cost.boxes + cost.look
  const outputs = `one per started ${OUTPUT_LIMITS.creditPixels / 1e6} MP of output`
  const extras = [
    ...(cost.boxes > 0
      ? [`${cost.boxes} for its ${cost.boxes === 1 ? 'look-again box' : `${cost.boxes} look-again boxes`}, one each`]
      : []),
    ...(cost.look > 0 ? [`${cost.look} for the second look it asks for (look=always), one per view`] : [])
  ]
  const costs =
    extras.length > 0
      ? `this job costs ${total} credits (${cost.outputs} for its outputs, ${outputs}, and ${extras.join(', and ')})`
      : total === 1
        ? 'a job costs 1 credit'
        : `this job costs ${total} credits (${outputs})`
  return new EngineError(
    'insufficient_credits',
    `This API key has ${balance === 0 ? 'no credits left' : `${balance} credit${balance === 1 ? '' : 's'} left`}; ${costs}.`
  )
}
