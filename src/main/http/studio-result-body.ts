/**
 * Receives a worker's result upload: a multipart body with one `meta` field (JSON, at most
 * 64 KB) and one file part per output, named `<variation>.<ext>`. Each file part is streamed
 * straight into the job's result folder under a temp name (never held in memory), counted
 * against the body limit (413) and the listener's in-flight budget (503), and refused as soon
 * as its name is not one the job allows (422). On any refusal every file written is removed.
 */
import { createWriteStream, type WriteStream } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import type { IncomingMessage } from 'node:http'
import { join } from 'node:path'
import busboy from 'busboy'
import { ApiError } from './api-error'
import { tempPathFor } from '../engine/file-helpers'
// The studio protocol over HTTP is the studio feature's own transport: it speaks studio's types, unlike the app's transports.
import type { StagedFile } from '../studio/result-check'
import { declaredLength, endedEarly, pipeBody, tooLarge, type ChunkMeter, type RateFloor } from './read-body'

/** Bytes of each file kept for its signature. */
const HEAD_BYTES = 64
const META_BYTES = 64 * 1024

export interface ReceivedResult {
  meta: string | null
  files: StagedFile[]
}

export interface ReceiveOptions {
  /** The job's result folder: files are written there under temp names. */
  dir: string
  /** The part names the job allows. */
  allowed: Set<string>
  /** The most bytes the body may carry, files together. */
  maxBytes: number
  /** Counts an arriving chunk against the in-flight budget; the refusal past it. */
  meter: ChunkMeter
  /** @default DEFAULT_RATE_FLOOR */
  floor?: RateFloor
}

const WHAT = 'The result upload'

function malformed(message: string): ApiError {
  return new ApiError('malformed_request', message)
}

/** Reads a result upload into staged files; throws the refusal (and removes what it wrote). */
export async function receiveResult(req: IncomingMessage, opts: ReceiveOptions): Promise<ReceivedResult> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== 'multipart/form-data')
    throw malformed(`Send the result as multipart/form-data (a "meta" field and a file part per output), not "${type || '(none)'}".`)
  const declared = declaredLength(req)
  if (declared !== null && declared > opts.maxBytes) throw tooLarge(opts.maxBytes, WHAT)
  await mkdir(opts.dir, { recursive: true })
  const files: StagedFile[] = []
  const writers: WriteStream[] = []
  try {
    const meta = await parse(req, opts, files, writers)
    return { meta, files }
  } catch (err) {
    for (const w of writers) w.destroy()
    await Promise.all(files.map((f) => rm(f.path, { force: true })))
    throw err
  }
}

function parse(req: IncomingMessage, opts: ReceiveOptions, files: StagedFile[], writers: WriteStream[]): Promise<string | null> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy
    try {
      // busboy reports `parts` and `fileSize` on reaching the limit, `files` and `fields` past it.
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: opts.maxBytes + 1, files: opts.allowed.size, fields: 1, fieldSize: META_BYTES, parts: opts.allowed.size + 2 }
      })
    } catch (err) {
      reject(malformed(`The multipart body cannot be parsed: ${(err as Error).message}`))
      return
    }
    let meta: string | null = null
    let failure: ApiError | null = null
    let total = 0
    const pending: Promise<void>[] = []
    const seen = new Set<string>()
    // The body reaches busboy only through the one body reader: on a refusal it stops there,
    // and what the worker still sends is dropped there (up to a bound), so that it reads the answer.
    const body = pipeBody(req, parser, { limit: opts.maxBytes, what: WHAT, meter: opts.meter, floor: opts.floor })
    const fail = (err: ApiError): void => {
      if (failure) return
      failure = err
      body.stop(err)
      // Not from inside busboy's own callback (a 'limit' or 'file' event): busboy goes on using
      // its state after the callback returns, and destroying it there throws in the process.
      setImmediate(() => parser.destroy(err))
      for (const w of writers) w.destroy() // each one's 'close' settles its pending write
    }
    body.done.catch((err: ApiError) => fail(err))
    parser.on('field', (name, value, info) => {
      if (name !== 'meta')
        fail(
          new ApiError('validation_failed', `Unexpected field "${name}": a result has one field, "meta".`, {
            details: [{ field: name, issue: 'not expected' }]
          })
        )
      else if (info.valueTruncated)
        fail(
          new ApiError('validation_failed', `The meta field is longer than ${META_BYTES} bytes.`, {
            details: [{ field: 'meta', issue: 'too long' }]
          })
        )
      else meta = value
    })
    parser.on('file', (name, stream) => {
      stream.on('error', (err: Error) => fail(malformed(`The result body ended before it was complete (${err.message}).`)))
      if (!opts.allowed.has(name) || seen.has(name)) {
        stream.resume()
        const issue = seen.has(name) ? 'sent twice' : `not one of ${[...opts.allowed].join(', ')}`
        fail(
          new ApiError('validation_failed', `The part "${name}" is not an output this job asked for (its format and variations).`, {
            details: [{ field: name, issue }]
          })
        )
        return
      }
      seen.add(name)
      const path = tempPathFor(join(opts.dir, name))
      const file: StagedFile = { name, path, size: 0, head: Buffer.alloc(0) }
      files.push(file)
      const out = createWriteStream(path, { flags: 'wx' })
      writers.push(out)
      pending.push(
        new Promise<void>((done) => {
          out.on('close', done)
          out.on('error', (err: Error) => {
            fail(new ApiError('unavailable', `The result could not be stored: ${err.message}`, { retryAfterSeconds: 60 }))
            done()
          })
        })
      )
      stream.on('data', (chunk: Buffer) => {
        file.size += chunk.length
        total += chunk.length
        if (file.head.length < HEAD_BYTES) file.head = Buffer.concat([file.head, chunk.subarray(0, HEAD_BYTES - file.head.length)])
        if (total > opts.maxBytes) fail(tooLarge(opts.maxBytes, WHAT))
      })
      stream.on('limit', () => fail(tooLarge(opts.maxBytes, WHAT)))
      stream.pipe(out)
    })
    parser.on('filesLimit', () =>
      fail(
        new ApiError('validation_failed', 'The result has more file parts than the job has outputs.', {
          details: [{ field: 'files', issue: 'too many' }]
        })
      )
    )
    parser.on('fieldsLimit', () =>
      fail(new ApiError('validation_failed', 'The result has more than one field.', { details: [{ field: 'fields', issue: 'too many' }] }))
    )
    parser.on('partsLimit', () =>
      fail(new ApiError('validation_failed', 'The result has too many parts.', { details: [{ field: 'parts', issue: 'too many' }] }))
    )
    parser.on('error', (err: Error) => fail(failure ?? malformed(`The multipart body cannot be parsed: ${err.message}`)))
    parser.on('close', () => {
      void Promise.all(pending).then(() => {
        if (failure) reject(failure)
        else if (!req.complete) reject(endedEarly(WHAT))
        else resolve(meta)
      })
    })
  })
}
