/**
 * Display versions of inputs and results (thumbnails, the before/after view), rendered inside
 * the decode sandbox: an input is untrusted, so it goes through the same cleaning and limits as
 * a job's decode (an SVG is cleaned, a PSD read by its composite).
 */
import { readFile } from 'node:fs/promises'
import sharp, { type Sharp } from 'sharp'
import { sniffImageType } from '../pipeline/decode/sniff'
import { decodeImage } from '../pipeline/decode/decode'
import type { PreviewRequest } from './protocol'

export async function renderPreview(req: PreviewRequest, maxPixels: number): Promise<Buffer> {
  const bytes = await readFile(req.path)
  const type = sniffImageType(bytes)
  // Rasters go to sharp directly, which shrinks JPEGs while decoding; SVG and PSD need the
  // decoder's cleaning and composite reading.
  const image =
    type === 'svg' || type === 'psd' || type === null
      ? await decodeImage(bytes, { maxPixels }).then((d) => sharp(d.data, { raw: { width: d.width, height: d.height, channels: 4 } }))
      : sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error' }).rotate()
  const shown = req.frame ? await framed(image, req.frame, req.edge) : image
  return shown
    .resize(req.edge, req.edge, { fit: 'inside', withoutEnlargement: true })
    .webp({ quality: req.quality, alphaQuality: 100 })
    .toBuffer()
}

/**
 * The image placed as a job framed it: its `source` part scaled into `target` on a transparent
 * canvas, all at the display size (never the full canvas first: a 10,000-pixel canvas would
 * cost its whole size for a preview).
 */
async function framed(image: Sharp, frame: NonNullable<PreviewRequest['frame']>, edge: number): Promise<Sharp> {
  const k = Math.min(1, edge / Math.max(frame.canvas.width, frame.canvas.height))
  const canvas = { width: Math.max(1, Math.round(frame.canvas.width * k)), height: Math.max(1, Math.round(frame.canvas.height * k)) }
  const left = Math.min(canvas.width - 1, Math.round(frame.target.x * k))
  const top = Math.min(canvas.height - 1, Math.round(frame.target.y * k))
  const width = Math.max(1, Math.min(canvas.width - left, Math.round(frame.target.width * k)))
  const height = Math.max(1, Math.min(canvas.height - top, Math.round(frame.target.height * k)))
  const part = await image
    .extract({ left: frame.source.x, top: frame.source.y, width: frame.source.width, height: frame.source.height })
    .resize(width, height, { fit: 'fill' })
    .ensureAlpha()
    .png()
    .toBuffer()
  return sharp(part).extend({
    left,
    top,
    right: canvas.width - left - width,
    bottom: canvas.height - top - height,
    background: { r: 0, g: 0, b: 0, alpha: 0 }
  })
}
