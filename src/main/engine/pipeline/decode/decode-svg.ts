/**
 * SVG inputs are rendered by sharp (librsvg) with no external resources (docs/pipeline.md).
 *
 * The document is rebuilt from an allow-list first (`svg-clean.ts`): no reference of any kind
 * leaves the document, and every inline raster image is measured here, so that its pixels
 * count against the image limit together with the canvas. librsvg would refuse external
 * references on its own too (an SVG given as a buffer has no base URL); the cleaning makes the
 * guarantee independent of that default.
 *
 * Runs inside the decode sandbox only: parsing, measuring and rendering untrusted SVG never
 * happens on the engine's main thread, and a costly filter is stopped by the sandbox's limits.
 */
import { gunzipSync } from 'node:zlib'
import sharp from 'sharp'
import { JobFailure } from '../../errors'
import { cleanSvg, SvgRefused } from './svg-clean'

const GZIP_MAGIC = [0x1f, 0x8b]

export interface PreparedSvg {
  /** The cleaned document, ready for sharp. */
  bytes: Buffer
  /** Pixels of the inline raster images it keeps (each frame of each one). */
  embeddedPixels: number
}

/**
 * The SVG bytes ready for sharp: gunzipped when compressed (`.svgz`, at most `maxBytes` once
 * inflated), cleaned, and its inline images measured. Throws `JobFailure` (`unsupported_image`
 * or `image_too_large`).
 */
export async function prepareSvg(bytes: Buffer, opts: { maxBytes: number; maxPixels: number }): Promise<PreparedSvg> {
  let raw = bytes
  if (bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1]) {
    try {
      raw = gunzipSync(bytes, { maxOutputLength: opts.maxBytes })
    } catch {
      throw new JobFailure('unsupported_image', 'the compressed svg image cannot be inflated (damaged or too large)')
    }
  }
  if (raw.length > opts.maxBytes) throw new JobFailure('unsupported_image', `the svg image is larger than ${opts.maxBytes} bytes`)
  let clean: ReturnType<typeof cleanSvg>
  try {
    clean = cleanSvg(raw.toString('utf8'))
  } catch (err) {
    if (err instanceof SvgRefused) throw new JobFailure('unsupported_image', `the svg image cannot be used: ${err.message}`)
    throw err
  }
  let embeddedPixels = 0
  for (const image of clean.images) {
    embeddedPixels += await measure(image)
    if (embeddedPixels > opts.maxPixels) {
      throw new JobFailure(
        'image_too_large',
        `the svg image embeds images of ${formatMp(embeddedPixels)} or more, over the limit of ${formatMp(opts.maxPixels)}`
      )
    }
  }
  return { bytes: Buffer.from(clean.text, 'utf8'), embeddedPixels }
}

/** Pixels an inline image decodes to, from its header (no pixel is decoded). */
async function measure(image: Buffer): Promise<number> {
  try {
    const meta = await sharp(image, { limitInputPixels: false }).metadata()
    if (!meta.width || !meta.height) throw new Error('no dimensions')
    return meta.width * meta.height * Math.max(1, meta.pages ?? 1)
  } catch {
    throw new JobFailure('unsupported_image', 'the svg image embeds an image that cannot be read')
  }
}

function formatMp(pixels: number): string {
  return `${(pixels / 1e6).toFixed(1)} MP`
}
