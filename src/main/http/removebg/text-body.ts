/**
 * JSON and form-urlencoded bodies of `/v1.0/removebg` parsed off the main thread. Such a body may
 * carry the photo as base64 (`image_file_b64`, up to 67 MB of text for a 50 MB image): parsing
 * and decoding that on the event loop once held every other request (`/health` included) for a
 * second a body. Here the body's bytes (already read and counted by the one body reader) are
 * moved, not copied, to a worker thread, which parses them, takes the base64 image out, checks
 * and decodes it, and moves the image's bytes back; the main thread only rebuilds the few small
 * fields. At most `WORKERS` bodies are parsed at once (each worker one at a time, kept for the
 * next body, dropped when idle); one that dies (out of memory) or takes too long fails only its
 * own request.
 *
 * The worker is a string run with `eval: true`, as the segmentation worker is
 * (`engine/segment/session/segment-worker.ts`): no separate build entry, the same from the bundle,
 * tests and plain Node.
 */
import { Worker } from 'node:worker_threads'
import { ApiError } from '../api-error'

/** Plain CommonJS; replies `{id, fields: [name, value][], b64Given?, image?: ArrayBuffer, imageError?}` or `{id, error}`. */
const TEXT_BODY_WORKER_SOURCE = String.raw`
'use strict'
const { parentPort } = require('node:worker_threads')
// One character class, anchored: linear, no backtracking.
const BASE64 = /^[A-Za-z0-9+/=\s]*$/
const MAX_FIELDS = 64
const MAX_FIELD_CHARS = 64 * 1024

function decodeBase64(text) {
  // A data: URL's header is taken off: clients paste those too.
  const comma = text.startsWith('data:') ? text.indexOf(',') : -1
  const body = comma >= 0 ? text.slice(comma + 1) : text
  if (!BASE64.test(body)) return { imageError: 'not base64' }
  // A form-urlencoded body whose client left "+" unescaped reads it as a space; base64 has no
  // spaces of its own (line breaks, which it may have, are left alone).
  const bytes = Buffer.from(body.replaceAll(' ', '+'), 'base64')
  if (bytes.length === 0) return { imageError: 'empty' }
  return { image: bytes }
}

function parse(kind, bytes, imageField) {
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8')
  const fields = []
  if (kind === 'json') {
    let value
    try {
      value = JSON.parse(text)
    } catch (err) {
      return { error: 'The body is not valid JSON: ' + err.message }
    }
    text = null
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'The JSON body must be an object of upload fields.' }
    for (const name of Object.keys(value)) fields.push([name, value[name]])
  } else {
    const seen = new Set()
    for (const [name, value] of new URLSearchParams(text)) {
      if (seen.has(name)) return { error: 'The field "' + name + '" was sent more than once.' }
      seen.add(name)
      fields.push([name, value])
    }
    text = null
  }
  // What goes back to the main thread is small: a few fields, each short (as multipart's text parts).
  if (fields.length > MAX_FIELDS) return { error: 'Too many fields (at most ' + MAX_FIELDS + ').' }
  for (const [name, value] of fields) {
    if (name === imageField && typeof value === 'string') continue
    const size = typeof value === 'string' ? value.length : (JSON.stringify(value) ?? '').length
    if (name.length > MAX_FIELD_CHARS || size > MAX_FIELD_CHARS) return { error: 'The field "' + name.slice(0, 64) + '" is too long.' }
  }
  const at = fields.findIndex((f) => f[0] === imageField)
  // Absent, empty or not a string: left among the fields for the route to judge.
  if (at < 0 || typeof fields[at][1] !== 'string' || fields[at][1] === '') return { fields }
  const b64 = fields[at][1]
  fields.splice(at, 1)
  return { fields, b64Given: true, ...decodeBase64(b64) }
}

parentPort.on('message', (msg) => {
  let reply
  try {
    reply = parse(msg.kind, new Uint8Array(msg.body), msg.field)
  } catch (err) {
    reply = { error: 'The body cannot be parsed: ' + err.message }
  }
  const transfer = []
  if (reply.image) {
    const img = reply.image
    const own = img.byteOffset === 0 && img.buffer.byteLength === img.length ? img.buffer : new Uint8Array(img).buffer
    reply.image = own
    transfer.push(own)
  }
  parentPort.postMessage({ id: msg.id, ...reply }, transfer)
})
`

/** What a text body held: its fields (no prototype), and the base64 image when one was given. */
export interface TextBody {
  fields: Record<string, unknown>
  /** `image_file_b64` was given as a string: its decoded bytes, or why it is not base64. */
  b64?: { bytes: Buffer } | { error: string }
}

interface Reply {
  id: number
  error?: string
  fields?: [string, unknown][]
  b64Given?: boolean
  image?: ArrayBuffer
  imageError?: string
}

/** Bodies parsed at once; more wait their turn (their bytes are already counted in the budget). */
const WORKERS = 2
/** A worker's heap: the body's text and the JSON string inside it, with room (its Buffers are outside). */
const WORKER_HEAP_MB = 512
/** Longer than parsing a 67 MB body on a loaded machine takes, by far. */
const PARSE_TIMEOUT_MS = 60_000
/** A worker idle this long is ended (a new one starts in about 30 ms). */
const IDLE_MS = 30_000

interface Slot {
  worker: Worker
  busy: boolean
  idle: NodeJS.Timeout | null
  /** It failed or was stopped: never given another body. */
  dead: boolean
}

const slots: Slot[] = []
const waiting: (() => void)[] = []
let nextId = 1

function malformed(message: string): ApiError {
  return new ApiError('malformed_request', message)
}

async function takeSlot(): Promise<Slot> {
  for (;;) {
    const free = slots.find((s) => !s.busy)
    if (free) {
      if (free.idle) clearTimeout(free.idle)
      free.busy = true
      return free
    }
    if (slots.length < WORKERS) {
      const worker = new Worker(TEXT_BODY_WORKER_SOURCE, { eval: true, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } })
      worker.unref()
      const slot: Slot = { worker, busy: true, idle: null, dead: false }
      slots.push(slot)
      worker.once('exit', () => {
        drop(slot)
        waiting.shift()?.()
      })
      return slot
    }
    await new Promise<void>((resolve) => waiting.push(resolve))
  }
}

function drop(slot: Slot): void {
  slot.dead = true
  const at = slots.indexOf(slot)
  if (at >= 0) slots.splice(at, 1)
}

function giveBack(slot: Slot): void {
  slot.busy = false
  slot.idle = setTimeout(() => {
    // Out of the pool first: no body is given to a worker that is ending.
    drop(slot)
    void slot.worker.terminate()
  }, IDLE_MS)
  slot.idle.unref()
  waiting.shift()?.()
}

function ask(slot: Slot, kind: 'json' | 'urlencoded', body: Buffer, field: string): Promise<Reply> {
  const id = nextId++
  // The body's own memory moves to the worker when it is all of its buffer (a large body is);
  // a small one, in the shared pool, is copied.
  const own = body.byteOffset === 0 && body.buffer.byteLength === body.length && body.buffer instanceof ArrayBuffer
  const moved = own ? (body.buffer as ArrayBuffer) : new Uint8Array(body).buffer
  return new Promise<Reply>((resolve, reject) => {
    const cleanup = (failed = false): void => {
      if (failed) drop(slot)
      clearTimeout(timer)
      slot.worker.off('message', onMessage)
      slot.worker.off('error', onError)
      slot.worker.off('exit', onExit)
    }
    const onMessage = (reply: Reply): void => {
      if (reply.id !== id) return
      cleanup()
      resolve(reply)
    }
    const onError = (err: Error & { code?: string }): void => {
      cleanup(true)
      reject(
        malformed(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? 'The body could not be parsed within the memory allowed.'
            : `The body cannot be parsed: ${err.message}`
        )
      )
    }
    const onExit = (): void => {
      cleanup(true)
      reject(malformed('The body cannot be parsed: its parser stopped.'))
    }
    const timer = setTimeout(() => {
      cleanup(true)
      void slot.worker.terminate()
      reject(malformed('The body took too long to parse.'))
    }, PARSE_TIMEOUT_MS)
    slot.worker.on('message', onMessage)
    slot.worker.once('error', onError)
    slot.worker.once('exit', onExit)
    // Ref'd while it works for this request; unref'd again when idle.
    slot.worker.ref()
    slot.worker.postMessage({ id, kind, body: moved, field }, [moved])
  })
}

/**
 * Parses a whole JSON or form-urlencoded body in a worker thread, decoding the base64 of
 * `imageField`. `body` must not be used afterwards (its memory may have moved to the worker).
 * Throws 400 `malformed_request` for a body that is not JSON (an object) or repeats a field.
 */
export async function parseTextBody(kind: 'json' | 'urlencoded', body: Buffer, imageField: string): Promise<TextBody> {
  const slot = await takeSlot()
  let reply: Reply
  try {
    reply = await ask(slot, kind, body, imageField)
  } finally {
    if (!slot.dead) {
      slot.worker.unref()
      giveBack(slot)
    }
  }
  if (reply.error !== undefined) throw malformed(reply.error)
  // No prototype: a field named `constructor` or `toString` is a field like any other.
  const fields: Record<string, unknown> = Object.create(null)
  for (const [name, value] of reply.fields ?? []) fields[name] = value
  if (!reply.b64Given) return { fields }
  return { fields, b64: reply.image ? { bytes: Buffer.from(reply.image) } : { error: reply.imageError ?? 'not base64' } }
}
