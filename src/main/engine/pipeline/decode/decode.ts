/**
 * The decode step: input bytes → upright 8-bit sRGB RGBA pixels (docs/pipeline.md).
 *
 * PNG, JPEG, WebP, GIF, AVIF, TIFF and SVG go through sharp; PSD through ag-psd (its composite
 * image, `decode-psd.ts`); SVG is rendered with every external reference made inert first
 * (`decode-svg.ts`). EXIF orientation is applied; CMYK, greyscale, 16-bit and ICC-tagged inputs
 * all come out as 8-bit sRGB, which the model and the refinement work on. Beside it come the
 * input's own pixels when they are more than that (16-bit, a non-sRGB RGB profile) and its
 * metadata, for the outputs (`source-info.ts`). The size limit is checked on the header before any pixel is
 * decoded, so a small file claiming huge dimensions (a "decompression bomb") costs nothing.
 */
import sharp, { type Metadata, type OutputInfo } from 'sharp'
import { JobFailure } from '../../errors'
import { psdDimensions, sniffImageType, type SniffedType } from './sniff'
import { readPsdComposite, withIccChunk } from './decode-psd'
import { prepareSvg } from './decode-svg'
import {
  differsBeyond,
  fitsBeside,
  isRgbProfile,
  MAX_ICC_BYTES,
  NO_METADATA,
  readNative,
  readSourceMetadata,
  SRGB_TOLERANCE,
  type NativePixels,
  type SourceMetadata
} from '../metadata/source-info'
import { errorText } from '../../../../shared/errors'

export interface DecodedImage {
  /** RGBA, 8 bits per channel, rows top to bottom, no padding. */
  data: Buffer
  width: number
  height: number
  channels: 4
  /** The input had an alpha channel that is not fully opaque somewhere (a real cut-out). */
  hasAlpha: boolean
  warnings: string[]
  /** The input's own pixels when they are 16-bit or in a non-sRGB RGB profile (`source-info.ts`). */
  native?: NativePixels | null
  /** The input's profile and metadata, for the outputs (absent: none). */
  metadata?: SourceMetadata
}

export interface DecodeOptions {
  /** Largest width × height accepted (docs/api.md limits: 100 megapixels by default). */
  maxPixels: number
  /**
   * Memory the decode may use (the sandbox's limit): the input's own pixels are kept only when
   * they fit beside the 8-bit ones (`source-info.ts`). Absent: no limit.
   */
  memoryBytes?: number
}

/** Animated or multi-page formats we read the first frame/page of, and how we say so. */
const FIRST_FRAME_WARNINGS: Partial<Record<string, string>> = {
  gif: 'animated GIF: only the first frame was used',
  webp: 'animated WebP: only the first frame was used',
  tiff: 'multi-page TIFF: only the first page was used',
  heif: 'multi-image AVIF/HEIF: only the primary image was used'
}

// libvips' operation cache keeps up to 50 MB of recent results for identical operations on the
// same input; a pipeline sees each image once, so it only holds memory.
sharp.cache(false)

/** Largest SVG text we render once a compressed `.svgz` is inflated. */
export const MAX_SVG_BYTES = 64 * 1024 * 1024

export async function decodeImage(bytes: Buffer, opts: DecodeOptions): Promise<DecodedImage> {
  if (!Number.isSafeInteger(opts.maxPixels) || opts.maxPixels < 1) {
    // sharp reads 0 as "no limit": never let a bad setting switch the limit off.
    throw new JobFailure('pipeline_error', `maxPixels must be a positive integer, got ${opts.maxPixels}`)
  }
  const type = sniffInput(bytes)
  if (type === 'psd') return decodePsd(bytes, opts)

  const { source, meta } = await checkedHeader(bytes, type, opts.maxPixels)

  const warnings: string[] = []
  const firstFrameWarning = FIRST_FRAME_WARNINGS[meta.format]
  if ((meta.pages ?? 1) > 1 && firstFrameWarning) warnings.push(firstFrameWarning)

  const decoded = await decodeWithSharp(source, opts.maxPixels, meta.format)
  const metadata = type === 'svg' ? { ...NO_METADATA, warnings: [] } : readSourceMetadata(meta)
  const native = type === 'svg' ? null : await readNative(source, meta, decoded.data, opts, metadata)
  return {
    ...decoded,
    hasAlpha: meta.hasAlpha && hasTransparency(decoded.data),
    warnings: [...warnings, ...metadata.warnings],
    native,
    metadata
  }
}

/**
 * The input's type from its first bytes: only the types of the seed's MIME list are decoded,
 * whatever else libvips could read. A gzip stream is taken for a compressed SVG (`.svgz`).
 */
function sniffInput(bytes: Buffer): SniffedType {
  const type = sniffImageType(bytes)
  if (type) return type
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) return 'svg'
  throw new JobFailure('unsupported_image', 'not a supported image: the bytes are not a PNG, JPEG, WebP, GIF, AVIF, TIFF, PSD or SVG image')
}

function checkSize(width: number, height: number, maxPixels: number, embeddedPixels = 0): void {
  if (width * height + embeddedPixels > maxPixels) {
    const embedded = embeddedPixels > 0 ? ` plus ${formatMegapixels(embeddedPixels)} of embedded images` : ''
    throw new JobFailure(
      'image_too_large',
      `the image is ${width}×${height} (${formatMegapixels(width * height)})${embedded}, over the limit of ${formatMegapixels(maxPixels)}`
    )
  }
}

export interface ProbedImage {
  type: SniffedType
  /** Upright (after the EXIF orientation), as `decodeImage` gives it. */
  width: number
  height: number
  /** libvips's interpretation from the header (`srgb`, `cmyk`, `b-w`, `rgb16`…); absent for PSD. For the store check's colour space. */
  space?: string
}

/**
 * What intake needs to accept an upload: its type and size, from the header (for SVG: after
 * cleaning, with embedded images counted). Throws `JobFailure` like `decodeImage`. Runs in the
 * decode sandbox: an SVG must be parsed whole to know its size.
 */
export async function probeImage(bytes: Buffer, opts: DecodeOptions): Promise<ProbedImage> {
  const type = sniffInput(bytes)
  if (type === 'psd') {
    const size = psdDimensions(bytes)
    if (!size || size.width < 1 || size.height < 1)
      throw new JobFailure('unsupported_image', 'the psd header is damaged or says the image is empty')
    checkSize(size.width, size.height, opts.maxPixels)
    return { type, ...size }
  }
  const { meta } = await checkedHeader(bytes, type, opts.maxPixels)
  // Upright, as decoding gives it (an EXIF orientation may turn it): the output cost is counted on it.
  return { type, width: meta.autoOrient?.width ?? meta.width!, height: meta.autoOrient?.height ?? meta.height!, space: meta.space }
}

/**
 * The bytes sharp reads (for SVG: cleaned) and their header, with the size checked against the
 * limit before any pixel is decoded; the pixels of images inside an SVG count too, since they
 * are decoded while rendering.
 */
async function checkedHeader(bytes: Buffer, type: SniffedType, maxPixels: number): Promise<{ source: Buffer; meta: Metadata }> {
  let source = bytes
  let embeddedPixels = 0
  if (type === 'svg') {
    const prepared = await prepareSvg(bytes, { maxBytes: MAX_SVG_BYTES, maxPixels })
    source = prepared.bytes
    embeddedPixels = prepared.embeddedPixels
  }
  const meta = await readMetadata(source)
  if (!meta.width || !meta.height) throw new JobFailure('unsupported_image', `the ${meta.format} image has no dimensions`)
  checkSize(meta.width, meta.height, maxPixels, embeddedPixels)
  return { source, meta }
}

/** Any input sharp reads → upright 8-bit sRGB RGBA. */
async function decodeWithSharp(
  source: Buffer,
  maxPixels: number,
  format: string
): Promise<Pick<DecodedImage, 'data' | 'width' | 'height' | 'channels'>> {
  let decoded: { data: Buffer; info: OutputInfo }
  try {
    decoded = await sharp(source, {
      // 'error' rejects corrupt data but tolerates the harmless warnings many camera JPEGs
      // trigger under sharp's default 'warning'.
      failOn: 'error',
      // Belt and braces: the header check already enforced the same limit.
      limitInputPixels: maxPixels,
      autoOrient: true
    })
      // CMYK, greyscale, 16-bit and ICC-tagged inputs all come out as 8-bit sRGB: sharp
      // converts from an embedded profile (or its built-in CMYK one) to sRGB.
      .toColourspace('srgb')
      .ensureAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true })
  } catch (cause) {
    throw new JobFailure('unsupported_image', `the ${format} image cannot be decoded: ${errorText(cause)}`, { cause })
  }
  const { data, info } = decoded
  if (info.channels !== 4 || data.length !== info.width * info.height * 4) {
    throw new JobFailure('pipeline_error', `decoded ${info.width}×${info.height}×${info.channels} (${data.length} bytes), expected RGBA`)
  }
  return { data, width: info.width, height: info.height, channels: 4 }
}

/** PSD: size from the header first (as at intake), then ag-psd's composite, then its profile. */
async function decodePsd(bytes: Buffer, opts: DecodeOptions): Promise<DecodedImage> {
  const size = psdDimensions(bytes)
  if (!size || size.width < 1 || size.height < 1) throw new JobFailure('unsupported_image', 'the psd header is damaged or incomplete')
  checkSize(size.width, size.height, opts.maxPixels)
  const composite = readPsdComposite(bytes)
  let image: Pick<DecodedImage, 'data' | 'width' | 'height' | 'channels'> = {
    data: composite.data,
    width: composite.width,
    height: composite.height,
    channels: 4
  }
  // An RGB profile: through sharp with the profile attached, to come out in sRGB like every
  // input. (ag-psd gives grey as RGB already.)
  const rgbProfile = composite.icc !== null && isRgbProfile(composite.icc) && composite.icc.length <= MAX_ICC_BYTES
  if (rgbProfile) {
    const raw = { width: composite.width, height: composite.height, channels: 4 as const }
    const png = await sharp(composite.data, { raw, limitInputPixels: opts.maxPixels }).png({ compressionLevel: 0 }).toBuffer()
    image = await decodeWithSharp(withIccChunk(png, composite.icc!), opts.maxPixels, 'psd')
  }
  const metadata = readSourceMetadata({ xmp: composite.xmp === null ? undefined : Buffer.from(composite.xmp, 'utf8') })
  // The document's own pixels for the outputs: 16-bit words, or 8-bit values in a profile that is not sRGB.
  let native: NativePixels | null = null
  if (composite.words && fitsBeside(composite.width * composite.height, 16, opts.memoryBytes, metadata))
    native = { data: composite.words, depth: 16 }
  else if (
    rgbProfile &&
    differsBeyond(composite.data, image.data, SRGB_TOLERANCE) &&
    fitsBeside(composite.width * composite.height, 8, opts.memoryBytes, metadata)
  ) {
    native = { data: composite.data, depth: 8 }
  }
  if (native && rgbProfile) metadata.icc = composite.icc
  return { ...image, hasAlpha: hasTransparency(image.data), warnings: [...metadata.warnings], native, metadata }
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
export function hasTransparency(rgba: Buffer): boolean {
  for (let i = 3; i < rgba.length; i += 4) {
    if (rgba[i]! < 255) return true
  }
  return false
}

function formatMegapixels(pixels: number): string {
  return `${(pixels / 1e6).toFixed(1)} MP`
}
