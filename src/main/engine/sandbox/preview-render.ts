/**
 * Display versions of inputs and results (thumbnails, the before/after view), rendered inside
 * the decode sandbox: an input is untrusted, so it goes through the same cleaning and limits as
 * a job's decode (an SVG is cleaned, a PSD read by its composite).
 */
import { readFile } from 'node:fs/promises'
import sharp from 'sharp'
import { sniffImageType } from '../intake/sniff'
import { decodeImage } from '../pipeline/decode'
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
  return image
    .resize(req.edge, req.edge, { fit: 'inside', withoutEnlargement: true })
    .webp({ quality: req.quality, alphaQuality: 100 })
    .toBuffer()
}
