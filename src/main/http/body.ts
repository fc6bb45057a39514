import type { IncomingMessage } from 'node:http'
import busboy from 'busboy'
import type { UploadFields } from '../../shared/api'
import { ApiError } from './api-error'
import type { UploadInput } from '../engine/public'
import { endedEarly, pipeBody, readBody, tooLarge, type ChunkMeter, type RateFloor } from './read-body'
import { errorText } from '../../shared/errors'

/** A JSON upload body is only fields and a URL: anything this large is not one. */
const MAX_JSON_BYTES = 1024 * 1024
/** A multipart upload carries its file (and hint) and its text parts: at most this much beside the file limit. */
const MULTIPART_TEXT_BYTES = 1024 * 1024

export interface UploadBodyOptions {
  /** The most bytes the file (and the hint) may have. */
  maxFileBytes: number
  /** Counts each chunk against the in-flight budget. */
  meter?: ChunkMeter
  /** @default DEFAULT_RATE_FLOOR */
  floor?: RateFloor
  /**
   * Beyond `/api/v1/upload`'s own shape: the compatible remove.bg endpoint names its parts
   * `image_file` / `bg_image_file` (its JSON and form-urlencoded bodies are its own: `removebg/body.ts`).
   * @default { file: 'file', hint: 'hint' }
   */
  parts?: { file: string; hint: string }
}

function hintTooLarge(limit: number): ApiError {
  return new ApiError('payload_too_large', `The hint is larger than the limit of ${limit} bytes.`, {
    details: [{ field: 'hint', issue: `over ${limit} bytes` }]
  })
}

function malformed(message: string): ApiError {
  return new ApiError('malformed_request', message)
}

async function parseJson(req: IncomingMessage, opts: UploadBodyOptions): Promise<Omit<UploadInput, 'keyId'>> {
  const raw = await readBody(req, { limit: MAX_JSON_BYTES, meter: opts.meter, floor: opts.floor })
  let value: unknown
  try {
    value = JSON.parse(raw.toString('utf8'))
  } catch (err) {
    throw malformed(`The body is not valid JSON: ${errorText(err)}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw malformed('The JSON body must be an object of upload fields.')
  }
  return { fields: value as UploadFields }
}

/**
 * Every stream here has an `error` listener: busboy fails its file stream too when the body
 * ends inside a file part (an honest Content-Length that stops short, a chunked body cut off,
 * a reset), and an unheard `error` event would take the whole process down. The body reaches
 * busboy only through the one body reader (read-body.ts): a refusal of busboy's own (a part
 * over its limit, a bad part) stops that reader, and the rest of the body is dropped there.
 */
function parseMultipart(req: IncomingMessage, opts: UploadBodyOptions): Promise<Omit<UploadInput, 'keyId'>> {
  const { maxFileBytes } = opts
  const parts = opts.parts ?? { file: 'file', hint: 'hint' }
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: maxFileBytes, files: 2, fields: 20, fieldSize: 64 * 1024, parts: 22 }
      })
    } catch (err) {
      reject(malformed(`The multipart body cannot be parsed: ${errorText(err)}`))
      return
    }
    // No prototype: a part named `constructor` or `toString` is a field like any other.
    const fields: UploadFields = Object.create(null)
    let file: UploadInput['file']
    let hint: UploadInput['hint']
    let failure: ApiError | null = null
    const body = pipeBody(req, parser, { limit: maxFileBytes + MULTIPART_TEXT_BYTES, meter: opts.meter, floor: opts.floor })
    const fail = (err: ApiError): void => {
      if (failure) return
      failure = err
      body.stop(err)
      // Not from inside busboy's own callback: busboy goes on using its state after it returns.
      setImmediate(() => parser.destroy(err))
    }
    body.done.catch((err: ApiError) => fail(err))
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(malformed(`The field "${name}" is too long.`))
      else if (Object.hasOwn(fields, name)) fail(malformed(`The field "${name}" was sent more than once.`))
      else fields[name] = value
    })
    const seen = new Set<string>()
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = []
      if (name !== parts.file && name !== parts.hint)
        fail(
          malformed(
            `Unexpected file part "${name}"; the image goes in the part "${parts.file}", the second image in the part "${parts.hint}".`
          )
        )
      else if (seen.has(name)) fail(malformed(`The part "${name}" was sent more than once.`))
      seen.add(name)
      stream.on('error', (err: Error) => fail(endedEarly('The request body', err)))
      // Parts that are refused anyway are drained, not held.
      stream.on('data', (c: Buffer) => failure === null && chunks.push(c))
      stream.on('limit', () => fail(name === parts.hint ? hintTooLarge(maxFileBytes) : tooLarge(maxFileBytes)))
      stream.on('close', () => {
        if (failure) return
        // The declared type of a hint is not used: its bytes are sniffed at intake.
        if (name === parts.hint) hint = { bytes: Buffer.concat(chunks) }
        else file = { bytes: Buffer.concat(chunks), mimeType: info.mimeType, filename: info.filename }
      })
    })
    parser.on('filesLimit', () =>
      fail(malformed(`At most two files may be sent per upload: the image ("${parts.file}") and the second image ("${parts.hint}").`))
    )
    parser.on('fieldsLimit', () => fail(malformed('Too many fields.')))
    parser.on('partsLimit', () => fail(malformed('Too many parts.')))
    parser.on('error', (err: Error) => {
      fail(malformed(`The multipart body cannot be parsed: ${err.message}`))
      reject(failure)
    })
    parser.on('close', () => (failure ? reject(failure) : resolve({ fields, ...(file && { file }), ...(hint && { hint }) })))
  })
}

/** Reads an upload request body (JSON or multipart) into fields and an optional file. */
export async function readUpload(req: IncomingMessage, opts: UploadBodyOptions): Promise<Omit<UploadInput, 'keyId'>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (type === 'application/json') return parseJson(req, opts)
  if (type === 'multipart/form-data') return parseMultipart(req, opts)
  throw malformed(`Unsupported content type "${type || '(none)'}": send application/json or multipart/form-data.`)
}
