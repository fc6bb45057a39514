/**
 * The images of a remove.bg request as bytes: the photo from `image_file`, `image_file_b64` or
 * `image_url`, and the background from `bg_image_file` or `bg_image_url`. A URL is fetched here,
 * before the job is accepted, with the engine's `file_url` fetcher and address policy (the same
 * SSRF rules, redirects, byte cap and timeouts), so that the photo's size is known for the mapping
 * (`size`, `roi`, `scale`) and a refused address answers the request itself with 400.
 */
import { randomUUID } from 'node:crypto'
import { readFile, rm } from 'node:fs/promises'
import type { RemoveBgPort } from '../../engine/ports'
import { JobFailure } from '../../engine/errors'
import { fetchToFile } from '../../engine/public'
import { RemoveBgError, badField } from './errors'

export interface ImageBytes {
  bytes: Buffer
  /** The declared type of an uploaded part; null for base64 and fetched images (sniffed at intake). */
  mimeType: string | null
  filename: string
}

/** Only base64 characters and whitespace: one anchored character class, checked without backtracking before decoding. */
const BASE64 = /^[A-Za-z0-9+/=\s]*$/

/** The photo's source as the body gave it: a file part, a decoded `image_file_b64`, or the fields alone. */
export interface BodyImages {
  file?: ImageBytes
  /** `image_file_b64` of a JSON or form-urlencoded body, decoded off the main thread (`text-body.ts`). */
  b64?: { bytes: Buffer } | { error: string }
}

/** The one source of the photo: 400 `missing_source` without one, `multiple_sources` with more. */
export function pickSource(
  fields: Record<string, unknown>,
  { file, b64: decoded }: BodyImages
): { kind: 'file'; image: ImageBytes } | { kind: 'b64'; bytes: Buffer } | { kind: 'url'; url: string } {
  const b64 = decoded ?? fields.image_file_b64
  const url = fields.image_url
  const given = [file !== undefined, b64 !== undefined && b64 !== '', url !== undefined && url !== ''].filter(Boolean).length
  if (given === 0)
    throw new RemoveBgError(400, [
      { title: 'No image given', code: 'missing_source', detail: 'Send one of image_file, image_file_b64 or image_url.' }
    ])
  if (given > 1)
    throw new RemoveBgError(400, [
      {
        title: 'Multiple image sources given',
        code: 'multiple_sources',
        detail: 'Send only one of image_file, image_file_b64 or image_url.'
      }
    ])
  if (file) return { kind: 'file', image: file }
  if (decoded) {
    if ('error' in decoded) throw badField('invalid_image_file_b64', `image_file_b64: ${decoded.error}`)
    return { kind: 'b64', bytes: decoded.bytes }
  }
  if (b64 !== undefined && b64 !== '') {
    // A multipart text part (at most 64 KB) or a value that is no string.
    if (typeof b64 !== 'string') throw badField('invalid_image_file_b64', 'image_file_b64: expected a base64 string')
    return { kind: 'b64', bytes: decodeBase64(b64, 'image_file_b64') }
  }
  if (typeof url !== 'string') throw badField('invalid_image_url', 'image_url: expected an http(s) URL')
  return { kind: 'url', url }
}

/** A small base64 text (a multipart part, at most 64 KB) decoded here; large ones are decoded off the main thread. */
export function decodeBase64(text: string, field: string): Buffer {
  // A data: URL's header is taken off: clients paste those too.
  const comma = text.startsWith('data:') ? text.indexOf(',') : -1
  const body = comma >= 0 ? text.slice(comma + 1) : text
  if (!BASE64.test(body)) throw badField(`invalid_${field}`, `${field}: not base64`)
  // A form-urlencoded body whose client left "+" unescaped reads it as a space; base64 has no
  // spaces of its own (line breaks, which it may have, are left alone).
  const bytes = Buffer.from(body.replaceAll(' ', '+'), 'base64')
  if (bytes.length === 0) throw badField(`invalid_${field}`, `${field}: empty`)
  return bytes
}

/** Fetches `url` under the engine's address policy; a refused or failed fetch is a 400 naming `field`. */
export async function fetchImage(engine: RemoveBgPort, url: string, field: string, signal: AbortSignal): Promise<Buffer> {
  const path = engine.scratchPath(`removebg-${randomUUID()}`)
  try {
    await fetchToFile(url, path, {
      allowPrivateNetworkUrls: engine.options.allowPrivateNetworkUrls,
      maxBytes: engine.options.maxUploadBytes,
      signal
    })
    return await readFile(path)
  } catch (err) {
    if (err instanceof JobFailure) {
      const code =
        err.reason === 'fetch_too_large' ? 'file_too_large' : err.reason === 'fetch_blocked' ? 'url_blocked' : 'failed_to_download'
      throw badField(code, `${field}: ${err.message}`, 'Could not download the image')
    }
    throw err
  } finally {
    await rm(path, { force: true })
  }
}

/** The photo's bytes, whichever way it came. */
export async function photoBytes(engine: RemoveBgPort, source: ReturnType<typeof pickSource>, signal: AbortSignal): Promise<ImageBytes> {
  if (source.kind === 'file') return source.image
  if (source.kind === 'b64') return { bytes: source.bytes, mimeType: null, filename: 'image_file_b64' }
  return { bytes: await fetchImage(engine, source.url, 'image_url', signal), mimeType: null, filename: source.url }
}
