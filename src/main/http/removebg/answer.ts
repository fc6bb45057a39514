/**
 * A done job as remove.bg's answer: the image bytes (or `{"data":{"result_b64",…}}` with
 * `Accept: application/json`) and the `X-*` headers. The finishing steps the engine's parameter
 * set cannot express are done here on the job's own results (never on client bytes): the
 * background image laid under the cut-out (decoded in the sandbox like any input), `zip`
 * (colour + alpha matte), and the size cap of a cropped result.
 */
import { readFile } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import sharp, { type Sharp } from 'sharp'
import type { Variation } from '../../../shared/api'
import type { JobRecord, RemoveBgPort } from '../../engine/ports'
import { RemoveBgError } from './errors'
import type { Plan } from './mapping'
import { imageMimeOf } from '../../../shared/image-types'
import { storedZip } from './zip'

export interface Box {
  top: number
  left: number
  width: number
  height: number
}

export interface Answer {
  bytes: Buffer
  contentType: string
  width: number
  height: number
  foreground: Box
}

/** Alpha above this counts as foreground (X-Foreground-*): faint model noise in a background is not a subject. */
const FOREGROUND_ALPHA = 8

/** The box of the pixels above `threshold` in a one-channel plane; null when there are none. */
function foregroundBox(data: Buffer, width: number, height: number, threshold: number): Box | null {
  let [top, left, bottom, right] = [height, width, -1, -1]
  for (let y = 0; y < height; y++) {
    const row = y * width
    for (let x = 0; x < width; x++) {
      if (data[row + x]! > threshold) {
        if (y < top) top = y
        if (y > bottom) bottom = y
        if (x < left) left = x
        if (x > right) right = x
      }
    }
  }
  return bottom < 0 ? null : { top, left, width: right - left + 1, height: bottom - top + 1 }
}

function readResult(engine: RemoveBgPort, job: JobRecord, variation: Variation, ext: string): Promise<Buffer> {
  const record = engine.result(job.id, variation, ext)
  if (!record) throw new Error(`The job's ${variation} result is missing.`)
  return readFile(record.path)
}

function encode(image: Sharp, format: 'png' | 'jpg' | 'webp'): Sharp {
  return format === 'png'
    ? image.png()
    : format === 'jpg'
      ? image.flatten({ background: '#ffffff' }).jpeg({ quality: 90 })
      : image.webp({ quality: 90, alphaQuality: 100 })
}

/**
 * The answer for a done job. Throws 400 `unknown_foreground` when nothing was found and 400
 * `invalid_bg_image` when the background cannot be decoded: remove.bg charges neither, so the job
 * is refunded and its results deleted (`Engine.refuseResult`).
 */
export async function buildAnswer(engine: RemoveBgPort, job: JobRecord, plan: Plan, bgImage: Buffer | null): Promise<Answer> {
  const ext = plan.outputFormat
  const maskBytes = await readResult(engine, job, 'mask', ext)
  const mask = await sharp(maskBytes).extractChannel(0).raw().toBuffer({ resolveWithObject: true })
  // A JPEG mask carries compression noise near 0: its threshold is higher.
  const found = foregroundBox(mask.data, mask.info.width, mask.info.height, ext === 'png' ? FOREGROUND_ALPHA : FOREGROUND_ALPHA + 16)
  if (!found) {
    // remove.bg answers this at no charge: the job's results go with its credit (one rule, `Engine.refuseResult`).
    engine.refuseResult(job.id, 'No subject was found in the image; the result was deleted and no credits were charged.')
    throw new RemoveBgError(400, [
      {
        title: 'Could not identify foreground in image',
        code: 'unknown_foreground',
        detail: 'No subject was found in the image; no credits were charged.'
      }
    ])
  }
  // A shadow that could not be made well is skipped by the engine (job.ignored): the plain result then.
  const primary = job.ignored.includes(plan.primary)
    ? plan.primary === 'shadowTop'
      ? engine.result(job.id, 'compose', ext)
        ? 'compose'
        : 'clipping'
      : plan.primary
    : plan.primary
  let image = primary === 'mask' ? maskBytes : await readResult(engine, job, primary, ext)
  const canvas = { width: mask.info.width, height: mask.info.height }

  // The size cap on the final canvas (a crop's canvas is known only now).
  const k = plan.cap !== null && canvas.width * canvas.height > plan.cap ? Math.sqrt(plan.cap / (canvas.width * canvas.height)) : 1
  const out = { width: Math.max(1, Math.floor(canvas.width * k)), height: Math.max(1, Math.floor(canvas.height * k)) }
  const fitTo = (s: Sharp): Sharp => (k < 1 ? s.resize(out.width, out.height, { fit: 'fill' }) : s)
  const foreground: Box =
    k < 1
      ? {
          top: Math.floor(found.top * k),
          left: Math.floor(found.left * k),
          width: Math.max(1, Math.round(found.width * k)),
          height: Math.max(1, Math.round(found.height * k))
        }
      : found

  const composited = bgImage !== null && primary !== 'mask'
  if (composited) {
    // Decoded in the sandbox like any client image; only its raw pixels reach this process.
    const bg = await engine.decodeImage(bgImage).catch((err: Error) => {
      engine.refuseResult(
        job.id,
        `The background image could not be read: ${err.message}; the result was deleted and no credits were charged.`
      )
      throw new RemoveBgError(400, [
        {
          title: 'Invalid background image',
          code: 'invalid_bg_image',
          detail: `The background image could not be read: ${err.message}; no credits were charged.`
        }
      ])
    })
    const under = await sharp(bg.data, { raw: { width: bg.width, height: bg.height, channels: 4 } })
      .resize(canvas.width, canvas.height, { fit: 'cover' })
      .png()
      .toBuffer()
    image = await sharp(under)
      .composite([{ input: image }])
      .png()
      .toBuffer()
  }
  if (plan.answerFormat === 'zip') {
    const color = await fitTo(sharp(image).removeAlpha()).jpeg({ quality: 90 }).toBuffer()
    const alpha = await fitTo(sharp(maskBytes).extractChannel(0)).png().toBuffer()
    return {
      bytes: await storedZip([
        { name: 'color.jpg', bytes: color },
        { name: 'alpha.png', bytes: alpha }
      ]),
      contentType: 'application/zip',
      ...out,
      foreground
    }
  }
  // The engine wrote the answer's own format (mapping.ts) unless a background image was laid under it.
  const bytes = k < 1 || composited || ext !== plan.answerFormat ? await encode(fitTo(sharp(image)), plan.answerFormat).toBuffer() : image
  return { bytes, contentType: imageMimeOf(`result.${plan.answerFormat}`)!, ...out, foreground }
}

/** Sends the answer: bytes, or JSON with `Accept: application/json`; the remove.bg headers either way. */
export function sendAnswer(res: ServerResponse, answer: Answer, headers: Record<string, string>, asJson: boolean): void {
  const all: Record<string, string | number> = {
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Width': answer.width,
    'X-Height': answer.height,
    'X-Foreground-Top': answer.foreground.top,
    'X-Foreground-Left': answer.foreground.left,
    'X-Foreground-Width': answer.foreground.width,
    'X-Foreground-Height': answer.foreground.height,
    ...headers
  }
  if (asJson) {
    const text = JSON.stringify({
      data: {
        result_b64: answer.bytes.toString('base64'),
        foreground_top: answer.foreground.top,
        foreground_left: answer.foreground.left,
        foreground_width: answer.foreground.width,
        foreground_height: answer.foreground.height
      }
    })
    res.writeHead(200, { ...all, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) })
    res.end(text)
    return
  }
  res.writeHead(200, { ...all, 'Content-Type': answer.contentType, 'Content-Length': answer.bytes.length })
  res.end(answer.bytes)
}
