/**
 * The decode step: input bytes → upright 8-bit sRGB RGBA pixels.
 *
 * Everything sharp reads goes through here (PNG, JPEG, WebP, GIF, AVIF, TIFF, SVG). The size
 * limit is checked on the header before any pixel is decoded, so a small file claiming huge
 * dimensions (a "decompression bomb") costs nothing.
 */
import sharp, { type Metadata, type OutputInfo } from 'sharp'
import { JobFailure } from '../errors'

export interface DecodedImage {
  /** RGBA, 8 bits per channel, rows top to bottom, no padding. */
  data: Buffer
  width: number
  height: number
  channels: 4
  /** The input had an alpha channel that is not fully opaque somewhere (a real cut-out). */
  hasAlpha: boolean
  warnings: string[]
}

export interface DecodeOptions {
  /** Largest width × height accepted (SPEC §4: 100 megapixels by default). */
  maxPixels: number
}

/** PSD files start with this signature; sharp cannot read them (ag-psd will, later). */
const PSD_SIGNATURE = Buffer.from('8BPS', 'latin1')

/** Animated or multi-page formats we read the first frame/page of, and how we say so. */
const FIRST_FRAME_WARNINGS: Partial<Record<string, string>> = {
  gif: 'animated GIF: only the first frame was used',
  webp: 'animated WebP: only the first frame was used',
  tiff: 'multi-page TIFF: only the first page was used',
  heif: 'multi-image AVIF/HEIF: only the primary image was used'
}

export async function decodeImage(bytes: Buffer, opts: DecodeOptions): Promise<DecodedImage> {
  if (!Number.isSafeInteger(opts.maxPixels) || opts.maxPixels < 1) {
    // sharp reads 0 as "no limit": never let a bad setting switch the limit off.
    throw new JobFailure('pipeline_error', `maxPixels must be a positive integer, got ${opts.maxPixels}`)
  }
  if (bytes.length >= 4 && bytes.subarray(0, 4).equals(PSD_SIGNATURE)) {
    throw new JobFailure('not_implemented', 'PSD input is not supported yet')
  }

  const meta = await readMetadata(bytes)
  const { width, height } = meta
  if (!width || !height) {
    throw new JobFailure('unsupported_image', `the ${meta.format} image has no dimensions`)
  }
  if (width * height > opts.maxPixels) {
    throw new JobFailure(
      'image_too_large',
      `the image is ${width}×${height} (${formatMegapixels(width * height)}), over the limit of ${formatMegapixels(opts.maxPixels)}`
    )
  }

  const warnings: string[] = []
  const firstFrameWarning = FIRST_FRAME_WARNINGS[meta.format]
  if ((meta.pages ?? 1) > 1 && firstFrameWarning) warnings.push(firstFrameWarning)

  let decoded: { data: Buffer; info: OutputInfo }
  try {
    decoded = await sharp(bytes, {
      // 'error' rejects corrupt data but tolerates the harmless warnings many camera JPEGs
      // trigger under sharp's default 'warning'.
      failOn: 'error',
      // Belt and braces: the header check above already enforced the same limit.
      limitInputPixels: opts.maxPixels,
      autoOrient: true
    })
      // CMYK, greyscale, 16-bit and ICC-tagged inputs all come out as 8-bit sRGB.
      .toColourspace('srgb')
      .ensureAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true })
  } catch (cause) {
    throw new JobFailure('unsupported_image', `the ${meta.format} image cannot be decoded: ${errorText(cause)}`, {
      cause
    })
  }

  const { data, info } = decoded
  if (info.channels !== 4 || data.length !== info.width * info.height * 4) {
    throw new JobFailure(
      'pipeline_error',
      `decoded ${info.width}×${info.height}×${info.channels} (${data.length} bytes), expected RGBA`
    )
  }

  return {
    data,
    width: info.width,
    height: info.height,
    channels: 4,
    hasAlpha: meta.hasAlpha && hasTransparency(data),
    warnings
  }
}

/** Header only: sharp does not decode pixels for metadata. Unreadable → not an image we take. */
async function readMetadata(bytes: Buffer): Promise<Metadata> {
  try {
    // No pixel limit here: we want the true dimensions to report, and we enforce the limit
    // ourselves right after.
    return await sharp(bytes, { limitInputPixels: false }).metadata()
  } catch (cause) {
    throw new JobFailure('unsupported_image', `not a supported image: ${errorText(cause)}`, { cause })
  }
}

/** Whether any pixel of RGBA data is less than fully opaque. */
function hasTransparency(rgba: Buffer): boolean {
  for (let i = 3; i < rgba.length; i += 4) {
    if (rgba[i]! < 255) return true
  }
  return false
}

function formatMegapixels(pixels: number): string {
  return `${(pixels / 1e6).toFixed(1)} MP`
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
