/**
 * The encode step: RGBA pixels → the bytes of the requested output format.
 *
 * PNG, WebP and TIFF keep the alpha channel. JPEG has none, so a transparent image is flattened
 * onto white and a warning naming the variation says so (docs/params.md); an opaque one is written as
 * is, without a warning. PSD is a layered document (`psd.ts`).
 */
import type { Sharp } from 'sharp'
import type { OutputFormat, Variation } from '../../../../shared/api'
import { JobFailure } from '../../errors'
import { encodeSource } from './encode-source'
import { jpegWithBlocks, pngWithIcc, tiffWithIcc, webpWithIcc } from './encoded-blocks'
import { encodePsd } from './psd'
import type { ExifFields } from '../metadata/exif-fields'
import type { ComposedVariation, NativeImage, RgbaImage } from '../compose/variation'
import { errorText } from '../../../../shared/errors'
import { hasTransparency } from '../decode/decode'

export type { RgbaImage } from '../compose/variation'

export interface EncodeOptions {
  /** 1–100, for the lossy formats (jpg/jpeg, webp). Default 90. */
  quality?: number
  /** The variation being written, named in warnings. */
  variation?: Variation
  /** The image is an opaque grey (the mask): written with one channel where the format allows. */
  greyscale?: boolean
  /** The same image in the input's own colour space and depth: written instead, tagged with its profile. */
  native?: NativeImage
  /** XMP packet to write (cleaned for the job's `metadata` setting); absent: none. */
  xmp?: string | null
  /** EXIF fields to write (chosen for the job's `metadata` setting); absent: none. */
  exif?: ExifFields | null
  /** The input's IPTC-IIM record (JPEG and PSD outputs); absent: none. */
  iptc?: Buffer | null
}

export interface EncodedImage {
  bytes: Buffer
  /** Only when something was lost, e.g. transparency flattened for JPEG. */
  warnings: string[]
}

export const JPG_FLATTEN_WARNING = 'jpg has no transparency: flattened onto white'

/** The flattening warning of one variation, e.g. `the clipping variation was flattened onto white: jpg has no transparency`. */
export function flattenWarning(format: 'jpg' | 'jpeg', variation?: Variation): string {
  return variation ? `the ${variation} variation was flattened onto white: ${format} has no transparency` : JPG_FLATTEN_WARNING
}

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

  const warnings: string[] = []
  if (format === 'psd') {
    // Without layers: one layer holding the image (encodeVariation writes the layered document).
    return {
      bytes: await encodePsd({ variation: opts.variation ?? 'clipping', image: img }, { xmp: opts.xmp ?? null, iptc: opts.iptc }),
      warnings
    }
  }
  const { pipeline: pixels, iccAfter } = await encodeSource(img, format, opts)
  let out: Sharp
  switch (format) {
    case 'png':
      out = pixels.png()
      break
    case 'webp':
      // Lossy colour keeps files small; the alpha plane stays lossless so edges stay exact.
      out = pixels.webp({ quality, alphaQuality: 100, lossless: false })
      break
    case 'tiff':
      // LZW with the horizontal predictor: lossless, and read by every TIFF reader we target.
      out = pixels.tiff({ compression: 'lzw', predictor: 'horizontal' })
      break
    case 'jpg':
    case 'jpeg':
      if (!opts.greyscale && hasTransparency(img.data)) {
        out = pixels.flatten({ background: '#ffffff' })
        warnings.push(flattenWarning(format, opts.variation))
      } else {
        out = opts.greyscale ? pixels : pixels.removeAlpha()
      }
      out = out.jpeg({ quality })
      break
    default: {
      const never: never = format
      throw new JobFailure('pipeline_error', `unknown output format ${String(never)}`)
    }
  }

  try {
    const bytes = await out.toBuffer()
    if (format === 'png') return { bytes: iccAfter ? pngWithIcc(bytes, iccAfter) : bytes, warnings }
    if (format === 'jpg' || format === 'jpeg') return { bytes: jpegWithBlocks(bytes, { icc: iccAfter, iptc: opts.iptc }), warnings }
    if (format === 'webp' && iccAfter) return { bytes: webpWithIcc(bytes, iccAfter, img), warnings }
    if (format === 'tiff' && iccAfter) return { bytes: tiffWithIcc(bytes, iccAfter), warnings }
    return { bytes, warnings }
  } catch (cause) {
    throw new JobFailure('pipeline_error', `cannot encode ${format}: ${errorText(cause)}`, {
      cause
    })
  }
}

/** Writes one composed variation in the requested format (PSD with its layers). */
export async function encodeVariation(
  v: ComposedVariation,
  format: OutputFormat,
  opts: Pick<EncodeOptions, 'quality' | 'xmp' | 'exif' | 'iptc'> = {}
): Promise<EncodedImage> {
  if (format === 'psd') return { bytes: await encodePsd(v, { xmp: opts.xmp ?? null, iptc: opts.iptc }), warnings: [] }
  return encodeImage(v.image, format, { ...opts, variation: v.variation, greyscale: v.greyscale, native: v.native })
}
