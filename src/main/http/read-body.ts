/**
 * The one way a request body is read, by every route of every listener (uploads, the app
 * bridge, the studio endpoints): a limit on its size (413 `payload_too_large`), an optional
 * budget meter per chunk (503 from the caller's refusal), a floor on the sender's rate (408
 * `request_timeout`), and an early end or reset (400 `malformed_request`).
 *
 * Past any of these the reader STOPS: nothing more reaches the caller, and what the client still
 * sends is read and dropped (never held) for a bounded number of bytes and seconds, so that a
 * client still sending reads its answer instead of a reset; then the connection is closed. The
 * request stream itself is never destroyed here: the answer goes out on its socket, and the
 * socket is closed through a reference taken when the request arrived (a request's `socket`
 * property is gone once its answer has finished, and reading it then took the process down).
 */
import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { Writable } from 'node:stream'
import { ApiError } from './api-error'
import { errorText } from '../../shared/errors'

/** Counts an arriving chunk against a budget; returns the refusal past it. */
export type ChunkMeter = (bytes: number) => ApiError | null

/**
 * The slowest sender a body is read from: at least `bytesPerSecond` on average over each
 * window of `windowMs`, until the body ends; under it, 408 `request_timeout`.
 */
export interface RateFloor {
  bytesPerSecond: number
  windowMs: number
}

/** 8 KiB/s over 10 s: a 50 MB upload at this rate takes 100 minutes; a trickle is cut in 10 s. */
export const DEFAULT_RATE_FLOOR: RateFloor = { bytesPerSecond: 8 * 1024, windowMs: 10_000 }

export interface BodyOptions {
  /** The most bytes the whole body may carry; past it (declared or as it arrives) 413. */
  limit: number
  /** What the body is, for the refusal's message. @default "The request body" */
  what?: string
  /** Counts each chunk against an in-flight budget; its refusal stops the body. */
  meter?: ChunkMeter
  /** @default DEFAULT_RATE_FLOOR */
  floor?: RateFloor
}

/** After a refusal: what is read and dropped at most before the connection is closed. */
const DISCARD_BYTES = 16 * 1024 * 1024
const DISCARD_MS = 5000

export function tooLarge(limit: number, what = 'The request body'): ApiError {
  return new ApiError('payload_too_large', `${what} is larger than the limit of ${limit} bytes.`)
}

function tooSlow(floor: RateFloor, what: string): ApiError {
  return new ApiError(
    'request_timeout',
    `${what} arrived slower than ${floor.bytesPerSecond} bytes a second over ${floor.windowMs / 1000} s; send it faster or in smaller parts.`
  )
}

/** The client went away or broke the body off: there is nothing to parse. */
export function endedEarly(what = 'The request body', err?: Error): ApiError {
  return new ApiError('malformed_request', `${what} ended before it was complete${err?.message ? ` (${err.message})` : ''}.`)
}

/** The length a request declares (Content-Length), or null for a chunked body. */
export function declaredLength(req: IncomingMessage): number | null {
  const n = Number(req.headers['content-length'])
  return req.headers['content-length'] !== undefined && Number.isFinite(n) && n >= 0 ? n : null
}

/** The socket of each request, taken when the request arrived (see the file's comment). */
const sockets = new WeakMap<IncomingMessage, Socket>()
/** Requests whose remaining body is being dropped. */
const discarding = new WeakSet<IncomingMessage>()

/** Called by the listener for every request as it arrives. */
export function rememberSocket(req: IncomingMessage): void {
  sockets.set(req, req.socket)
}

/**
 * Drops what is left of a request body: read and thrown away up to DISCARD_BYTES or
 * DISCARD_MS, then the connection is closed. A body that ends within that leaves the
 * connection usable. Idempotent; does nothing for a body already complete.
 */
export function discardRest(req: IncomingMessage): void {
  if (req.complete || discarding.has(req)) return
  discarding.add(req)
  const socket = sockets.get(req) ?? req.socket
  let dropped = 0
  const close = (): void => {
    clearTimeout(timer)
    req.off('data', drop)
    if (socket && !socket.destroyed) socket.destroy()
  }
  const drop = (chunk: Buffer): void => {
    dropped += chunk.length
    if (dropped > DISCARD_BYTES) close()
  }
  const timer = setTimeout(close, DISCARD_MS)
  timer.unref()
  req.on('data', drop)
  req.once('end', () => {
    clearTimeout(timer)
    req.off('data', drop)
  })
  req.once('close', () => clearTimeout(timer))
  req.on('error', () => undefined)
  req.resume()
}

/** A body being read: `done` settles when it ended (or was refused); `stop` refuses it now. */
export interface BodyRead {
  done: Promise<void>
  /** Stops reading with this refusal (the rest is dropped); no-op once settled. */
  stop(err: ApiError): void
}

/**
 * Reads `req`'s body through the limits of `opts`, giving each chunk to `onChunk`. `onChunk`
 * may return false to pause the body until `resume` is called (back-pressure of a consumer).
 */
export function streamBody(
  req: IncomingMessage,
  opts: BodyOptions,
  onChunk: (chunk: Buffer) => boolean | void
): BodyRead & { resume(): void } {
  const what = opts.what ?? 'The request body'
  const floor = opts.floor ?? DEFAULT_RATE_FLOOR
  let settle: (err?: ApiError) => void = () => undefined
  const done = new Promise<void>((resolve, reject) => {
    settle = (err) => (err ? reject(err) : resolve())
  })
  let settled = false
  let size = 0
  let windowStart = 0
  let pausedInWindow = false
  const finish = (err?: ApiError): void => {
    if (settled) return
    settled = true
    clearInterval(rate)
    req.off('data', onData)
    if (err) discardRest(req)
    settle(err)
  }
  const onData = (chunk: Buffer): void => {
    if (settled) return
    size += chunk.length
    if (size > opts.limit) {
      finish(tooLarge(opts.limit, what))
      return
    }
    const refused = opts.meter?.(chunk.length)
    if (refused) {
      finish(refused)
      return
    }
    if (onChunk(chunk) === false) {
      pausedInWindow = true
      req.pause()
    }
  }
  // Checked once a window: a window in which the consumer held the body back does not count.
  const rate = setInterval(() => {
    const arrived = size - windowStart
    windowStart = size
    if (!pausedInWindow && !req.isPaused() && arrived < (floor.bytesPerSecond * floor.windowMs) / 1000) finish(tooSlow(floor, what))
    pausedInWindow = false
  }, floor.windowMs)
  rate.unref()

  const declared = declaredLength(req)
  if (declared !== null && declared > opts.limit) finish(tooLarge(opts.limit, what))
  // `complete` says the parser saw the end, not that the bytes were read: a body that arrived
  // while the route awaited something is still buffered in the stream, and read below.
  else if (req.readableEnded) finish()
  else {
    req.on('data', onData)
    req.once('end', () => finish())
    req.once('error', (err: Error) => finish(endedEarly(what, err)))
    req.once('close', () => !req.complete && finish(endedEarly(what)))
    req.resume()
  }
  return {
    done,
    stop: (err) => finish(err),
    resume: () => {
      if (!settled) req.resume()
    }
  }
}

/** Reads a whole body into memory (JSON bodies, small by their limit). */
export async function readBody(req: IncomingMessage, opts: BodyOptions): Promise<Buffer> {
  const chunks: Buffer[] = []
  await streamBody(req, opts, (chunk) => void chunks.push(chunk)).done
  return Buffer.concat(chunks)
}

/** Reads a body into a stream (a multipart parser), with its back-pressure; the parser is ended with the body. */
export function pipeBody(req: IncomingMessage, into: Writable, opts: BodyOptions): BodyRead {
  const read = streamBody(req, opts, (chunk) => into.write(chunk))
  into.on('drain', () => read.resume())
  read.done.then(
    () => into.end(),
    () => undefined
  )
  return read
}

/** Reads a JSON object body of at most `limit` bytes (400 for anything else, 413 past the limit). */
export async function readJsonObject(req: IncomingMessage, opts: BodyOptions): Promise<Record<string, unknown>> {
  const value = await readJson(req, opts)
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ApiError('malformed_request', 'The body must be a JSON object.')
  return value as Record<string, unknown>
}

/** Reads a JSON body (`undefined` for an empty one); 400 unless it is application/json. */
export async function readJson(req: IncomingMessage, opts: BodyOptions): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== 'application/json') throw new ApiError('malformed_request', 'Send the body as application/json.')
  const text = (await readBody(req, opts)).toString('utf8')
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new ApiError('malformed_request', `The body is not valid JSON: ${errorText(err)}`)
  }
}
