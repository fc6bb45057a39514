/**
 * The encode step: RGBA pixels → the bytes of the requested output format.
 *
 * PNG, WebP and TIFF keep the alpha channel. JPEG has none, so a transparent image is flattened
 * onto white and a warning says so (SPEC §2); an opaque one is written as is, without a warning.
 */
import sharp, { type Sharp } from 'sharp'
import type { OutputFormat } from '../../../shared/api'
import { JobFailure } from '../errors'

export interface RgbaImage {
  data: Buffer
  width: number
  height: number
  channels: 4
}

export interface EncodeOptions {
  /** 1–100, for the lossy formats (jpg/jpeg, webp). Default 90. */
  quality?: number
}

export interface EncodedImage {
  bytes: Buffer
  /** Only when something was lost, e.g. transparency flattened for JPEG. */
  warnings: string[]
}

export const JPG_FLATTEN_WARNING = 'jpg has no transparency: flattened onto white'

const DEFAULT_QUALITY = 90

export async function encodeImage(img: RgbaImage, format: OutputFormat, opts: EncodeOptions = {}): Promise<EncodedImage> {
  if (img.channels !== 4 || img.data.length !== img.width * img.height * 4) {
    throw new JobFailure(
      'pipeline_error',
      `encode input is ${img.width}×${img.height}×${img.channels} (${img.data.length} bytes), expected RGBA`
    )
  }
  const quality = opts.quality ?? DEFAULT_QUALITY
  if (!Number.isInteger(quality) || quality < 1 || quality > 100) {
    throw new JobFailure('pipeline_error', `quality must be an integer from 1 to 100, got ${quality}`)
  }

  const pixels = () => sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } })
  const warnings: string[] = []
  let out: Sharp
  switch (format) {
    case 'png':
      out = pixels().png()
      break
    case 'webp':
      // Lossy colour keeps files small; the alpha plane stays lossless so edges stay exact.
      out = pixels().webp({ quality, alphaQuality: 100, lossless: false })
      break
    case 'tiff':
      // LZW with the horizontal predictor: lossless, and read by every TIFF reader we target.
      out = pixels().tiff({ compression: 'lzw', predictor: 'horizontal' })
      break
    case 'jpg':
    case 'jpeg':
      if (hasTransparency(img.data)) {
        out = pixels().flatten({ background: '#ffffff' })
        warnings.push(JPG_FLATTEN_WARNING)
      } else {
        out = pixels().removeAlpha()
      }
      out = out.jpeg({ quality })
      break
    case 'psd':
      throw new JobFailure('not_implemented', 'PSD output is not available yet')
    default: {
      const never: never = format
      throw new JobFailure('pipeline_error', `unknown output format ${String(never)}`)
    }
  }

  try {
    return { bytes: await out.toBuffer(), warnings }
  } catch (cause) {
    throw new JobFailure('pipeline_error', `cannot encode ${format}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause
    })
  }
}

/** Whether any pixel of RGBA data is less than fully opaque. */
function hasTransparency(rgba: Buffer): boolean {
  for (let i = 3; i < rgba.length; i += 4) {
    if (rgba[i]! < 255) return true
  }
  return false
}
