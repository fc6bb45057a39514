import type { IncomingMessage } from 'node:http'
import busboy from 'busboy'
import type { UploadFields } from '../../shared/api'
import { ApiError } from '../engine/errors'
import type { UploadInput } from '../engine/intake/upload'

/** A JSON upload body is only fields and a URL: anything this large is not one. */
const MAX_JSON_BYTES = 1024 * 1024

function tooLarge(limit: number): ApiError {
  return new ApiError('payload_too_large', `The request body is larger than the limit of ${limit} bytes.`)
}

function hintTooLarge(limit: number): ApiError {
  return new ApiError('payload_too_large', `The hint is larger than the limit of ${limit} bytes.`, { details: [{ field: 'hint', issue: `over ${limit} bytes` }] })
}

function malformed(message: string): ApiError {
  return new ApiError('malformed_request', message)
}

/** The client went away or broke the body off: there is nothing to parse. */
function endedEarly(err?: Error): ApiError {
  return malformed(`The request body ended before it was complete${err?.message ? ` (${err.message})` : ''}.`)
}

/** Counts each arriving chunk against the in-flight budget; returns the refusal past it. */
export type ChunkMeter = (bytes: number) => ApiError | null

/**
 * How a body is read beyond `/api/v1/upload`'s own shape: the compatible remove.bg endpoint
 * names its parts `image_file` / `bg_image_file`, takes form-urlencoded bodies, and carries
 * base64 images in JSON.
 */
export interface ReadOptions {
  /** Names of the two file parts of a multipart body. @default { file: 'file', hint: 'hint' } */
  parts?: { file: string; hint: string }
  /** Also read `application/x-www-form-urlencoded` bodies (fields only). @default false */
  urlencoded?: boolean
  /** Largest JSON or form-urlencoded body. @default 1 MB */
  maxTextBytes?: number
}

async function readBody(req: IncomingMessage, limit: number, meter?: ChunkMeter): Promise<Buffer> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit)
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > limit) throw tooLarge(limit)
      const refused = meter?.(chunk.length)
      if (refused) throw refused
      chunks.push(chunk)
    }
  } catch (err) {
    throw err instanceof ApiError ? err : endedEarly(err as Error)
  }
  if (!req.complete) throw endedEarly()
  return Buffer.concat(chunks)
}

async function parseJson(req: IncomingMessage, limit: number, meter?: ChunkMeter): Promise<Omit<UploadInput, 'keyId'>> {
  const raw = await readBody(req, limit, meter)
  let value: unknown
  try {
    value = JSON.parse(raw.toString('utf8'))
  } catch (err) {
    throw malformed(`The body is not valid JSON: ${(err as Error).message}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw malformed('The JSON body must be an object of upload fields.')
  }
  return { fields: value as UploadFields }
}

/**
 * Every stream here has an `error` listener: busboy fails its file stream too when the body
 * ends inside a file part (an honest Content-Length that stops short, a chunked body cut off,
 * a reset), and an unheard `error` event would take the whole process down.
 */
async function parseUrlencoded(req: IncomingMessage, limit: number, meter?: ChunkMeter): Promise<Omit<UploadInput, 'keyId'>> {
  const fields: UploadFields = {}
  for (const [name, value] of new URLSearchParams((await readBody(req, limit, meter)).toString('utf8'))) {
    if (name in fields) throw malformed(`The field "${name}" was sent more than once.`)
    fields[name] = value
  }
  return { fields }
}

function parseMultipart(req: IncomingMessage, maxFileBytes: number, meter: ChunkMeter | undefined, parts: { file: string; hint: string }): Promise<Omit<UploadInput, 'keyId'>> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: maxFileBytes, files: 2, fields: 20, fieldSize: 64 * 1024, parts: 22 }
      })
    } catch (err) {
      reject(malformed(`The multipart body cannot be parsed: ${(err as Error).message}`))
      return
    }
    const fields: UploadFields = {}
    let file: UploadInput['file']
    let hint: UploadInput['hint']
    let failure: ApiError | null = null
    const fail = (err: ApiError): void => {
      failure ??= err
    }
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(malformed(`The field "${name}" is too long.`))
      else if (name in fields) fail(malformed(`The field "${name}" was sent more than once.`))
      else fields[name] = value
    })
    const seen = new Set<string>()
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = []
      if (name !== parts.file && name !== parts.hint) fail(malformed(`Unexpected file part "${name}"; the image goes in the part "${parts.file}", the second image in the part "${parts.hint}".`))
      else if (seen.has(name)) fail(malformed(`The part "${name}" was sent more than once.`))
      seen.add(name)
      stream.on('error', (err: Error) => fail(endedEarly(err)))
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
    parser.on('filesLimit', () => fail(malformed(`At most two files may be sent per upload: the image ("${parts.file}") and the second image ("${parts.hint}").`)))
    parser.on('fieldsLimit', () => fail(malformed('Too many fields.')))
    parser.on('partsLimit', () => fail(malformed('Too many parts.')))
    parser.on('error', (err: Error) => reject(failure ?? malformed(`The multipart body cannot be parsed: ${err.message}`)))
    parser.on('close', () => (failure ? reject(failure) : resolve({ fields, ...(file && { file }), ...(hint && { hint }) })))
    req.on('error', (err: Error) => {
      fail(endedEarly(err))
      parser.destroy(failure!)
    })
    if (meter) {
      req.on('data', (chunk: Buffer) => {
        const refused = meter(chunk.length)
        if (!refused || failure) return
        fail(refused)
        req.unpipe(parser)
        parser.destroy(refused)
      })
    }
    // A client that closes before the body is complete: busboy may never hear the end.
    req.on('close', () => {
      if (!req.complete) {
        fail(endedEarly())
        parser.destroy(failure!)
      }
    })
    req.pipe(parser)
  })
}

/** Reads an upload request body (JSON or multipart) into fields and an optional file. */
export async function readUpload(req: IncomingMessage, maxFileBytes: number, meter?: ChunkMeter, opts: ReadOptions = {}): Promise<Omit<UploadInput, 'keyId'>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  const maxText = opts.maxTextBytes ?? MAX_JSON_BYTES
  if (type === 'application/json') return parseJson(req, maxText, meter)
  if (opts.urlencoded && type === 'application/x-www-form-urlencoded') return parseUrlencoded(req, maxText, meter)
  if (type === 'multipart/form-data') {
    // The whole body may not exceed the file limit by much more than its text parts.
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > maxFileBytes + 1024 * 1024) throw tooLarge(maxFileBytes)
    return parseMultipart(req, maxFileBytes, meter, opts.parts ?? { file: 'file', hint: 'hint' })
  }
  const accepted = opts.urlencoded ? 'application/json, application/x-www-form-urlencoded or multipart/form-data' : 'application/json or multipart/form-data'
  throw malformed(`Unsupported content type "${type || '(none)'}": send ${accepted}.`)
}
