/**
 * What the outputs keep of the input besides its 8-bit sRGB pixels (which the model and the
 * edge refinement work on): its own pixels when they are more than that, and its metadata.
 *
 * - `native`: the input's pixels in its own colour space and at its own depth, when it has a
 *   16-bit depth or an RGB ICC profile that is not sRGB (e.g. Adobe RGB). Outputs are then
 *   made from these, tagged with that profile, so nothing shifts or loses precision. An
 *   sRGB-tagged input (its profile changes no pixel by more than 1/255) needs none.
 * - `icc`: the profile `native` is in (null: sRGB). Profiles of other classes (CMYK, grey) are
 *   converted away at decode, as is everything for an 8-bit output.
 * - `xmp`: the input's XMP packet, cleaned (`xmp-clean.ts`); `iptc`: its IPTC-IIM record
 *   (`iptc-clean.ts`); each also with the position, for `metadata=keep-gps`. EXIF's GPS fields
 *   are a group of their own (`ExifFields.gps`); its thumbnail (IFD1) is never read.
 *
 * Every byte here comes from an untrusted file, so this runs inside the decode sandbox, with
 * sizes bounded; the profile has already been read by lcms there (the pixels were converted
 * with it) before the engine attaches it to an output.
 */
import exifReader from 'exif-reader'
import sharp, { type Metadata } from 'sharp'
import { iptcRecord } from '../decode/decode-psd'
import { MAX_IPTC_BYTES } from '../encode/encoded-blocks'
import { exifFields, type DecodedExif, type ExifFields } from './exif-fields'
import { cleanIptc } from './iptc-clean'
import { cleanXmp } from './xmp-clean'
import { errorText } from '../../../../shared/errors'

export interface NativePixels {
  /** RGBA, same size and orientation as the decoded image: bytes (depth 8) or native-endian 16-bit words (depth 16). */
  data: Buffer
  depth: 8 | 16
}

export interface SourceMetadata {
  /** The RGB profile of `native` (null: sRGB, or no native pixels). */
  icc: Buffer | null
  /** The XMP packet without orientation, embedded images and position (`xmp-clean.ts`); null when the input had none. */
  xmp: string | null
  /** The same with the position the input had (`metadata=keep-gps`). */
  xmpWithGps: string | null
  /** The input's IPTC-IIM record without its place datasets (`iptc-clean.ts`); null: none. */
  iptc: Buffer | null
  /** The record as it came, places included (`metadata=keep-gps`). */
  iptcWithGps: Buffer | null
  /** The input's EXIF fields; null when it had none or they cannot be read. */
  exif: ExifFields | null
  /** What could not be kept, for the job's warnings. */
  warnings: string[]
}

export const NO_METADATA: SourceMetadata = {
  icc: null,
  xmp: null,
  xmpWithGps: null,
  iptc: null,
  iptcWithGps: null,
  exif: null,
  warnings: []
}

/** Largest ICC profile kept (RGB profiles are a few KB; LUT-based ones rarely pass 1 MB). */
export const MAX_ICC_BYTES = 4 * 2 ** 20
/** Largest EXIF block read (a camera's is 10–60 KB, most of it maker notes, which are not kept). */
export const MAX_EXIF_BYTES = 256 * 1024
/** Largest XMP packet kept. */
export const MAX_XMP_BYTES = 2 ** 20
/** A profile changing no channel by more than this (of 255) is taken for sRGB. */
export const SRGB_TOLERANCE = 1

/** Whether an ICC profile's header names the RGB colour space (bytes 16–19). */
export function isRgbProfile(icc: Buffer): boolean {
  return icc.length >= 128 && icc.toString('latin1', 16, 20) === 'RGB '
}

export function readSourceMetadata(meta: Pick<Metadata, 'xmp' | 'iptc' | 'exif'>): SourceMetadata {
  const warnings: string[] = []
  let iptc: Buffer | null = null
  let iptcWithGps: Buffer | null = null
  const record = meta.iptc ? iptcRecord(meta.iptc) : null
  if (record && record.length <= MAX_IPTC_BYTES) {
    const cleaned = cleanIptc(Buffer.from(record))
    iptc = cleaned.withoutPlace
    iptcWithGps = cleaned.withPlace
    if (iptcWithGps === null) warnings.push('metadata: the IPTC record does not parse and was not kept')
  } else if (record) {
    warnings.push(
      `metadata: the IPTC record (${Math.round(record.length / 1024)} KB) is over ${Math.floor(MAX_IPTC_BYTES / 1024)} KB and was not kept`
    )
  }
  let xmp: string | null = null
  let xmpWithGps: string | null = null
  if (meta.xmp && meta.xmp.length > MAX_XMP_BYTES) {
    warnings.push(
      `metadata: the XMP packet (${Math.round(meta.xmp.length / 1024)} KB) is over ${MAX_XMP_BYTES / 2 ** 20} MB and was not kept`
    )
  } else if (meta.xmp && meta.xmp.length > 0) {
    const cleaned = cleanXmp(meta.xmp.toString('utf8'))
    xmp = cleaned.withoutGps
    xmpWithGps = cleaned.withGps
    if (xmpWithGps === null) warnings.push('metadata: the XMP packet is not well-formed and was not kept')
  }
  return { icc: null, xmp, xmpWithGps, iptc, iptcWithGps, exif: readExif(meta.exif, warnings), warnings }
}

/**
 * The input's EXIF fields, read by exif-reader (bounds-checked reads of the TIFF structure, no
 * pattern matching). A block too large or that does not parse is dropped with a warning: the
 * photo is still cut out.
 */
function readExif(block: Buffer | undefined, warnings: string[]): SourceMetadata['exif'] {
  if (!block || block.length === 0) return null
  if (block.length > MAX_EXIF_BYTES) {
    warnings.push(`metadata: the EXIF block (${Math.ceil(block.length / 1024)} KB) is over ${MAX_EXIF_BYTES / 1024} KB and was not kept`)
    return null
  }
  try {
    return exifFields(exifReader(block) as DecodedExif)
  } catch (err) {
    warnings.push(`metadata: the EXIF block could not be read (${errorText(err)}) and was not kept`)
    return null
  }
}

/**
 * The input's own pixels when they are more than 8-bit sRGB, with the profile they are in.
 * `srgb8` is the same image already decoded to 8-bit sRGB RGBA.
 */
export async function readNative(
  source: Buffer,
  meta: Metadata,
  srgb8: Buffer,
  opts: { maxPixels: number; memoryBytes?: number },
  into: SourceMetadata
): Promise<NativePixels | null> {
  const icc = meta.icc && meta.icc.length > 0 ? meta.icc : null
  if (icc && icc.length > MAX_ICC_BYTES) {
    into.warnings.push(`metadata: the ICC profile (${Math.round(icc.length / 1024)} KB) is too large to keep; the output is in sRGB`)
    return null
  }
  const rgbProfile = icc !== null && isRgbProfile(icc)
  const depth: 8 | 16 = meta.depth === 'ushort' && (icc === null || rgbProfile) ? 16 : 8
  if (depth === 8 && !rgbProfile) return null
  if (meta.space === 'cmyk') return null
  if (!fitsBeside(srgb8.length / 4, depth, opts.memoryBytes, into)) return null
  const data = await sharp(source, { failOn: 'error', limitInputPixels: opts.maxPixels, autoOrient: true, ignoreIcc: true })
    .toColourspace(depth === 16 ? 'rgb16' : 'srgb')
    .ensureAlpha()
    .raw({ depth: depth === 16 ? 'ushort' : 'uchar' })
    .toBuffer()
  if (data.length !== srgb8.length * (depth / 8)) return null
  if (depth === 8 && !differsBeyond(data, srgb8, SRGB_TOLERANCE)) return null
  into.icc = rgbProfile ? icc : null
  return { data, depth }
}

/**
 * Bytes a pixel costs in the sandbox with its own pixels kept: 4 (8-bit sRGB) plus 4 or 8 (its
 * own), each held twice while handed to the engine (serialised), and libvips's room.
 */
const BYTES_PER_PIXEL_FACTOR = 2.5

/** Whether the input's own pixels fit beside the 8-bit ones in `memoryBytes`; says so when not. */
export function fitsBeside(pixels: number, depth: 8 | 16, memoryBytes: number | undefined, into: SourceMetadata): boolean {
  if (!memoryBytes) return true
  const need = pixels * (4 + 4 * (depth / 8)) * BYTES_PER_PIXEL_FACTOR
  if (need <= memoryBytes) return true
  const what = depth === 16 ? 'its 16-bit depth' : 'its own colour profile'
  into.warnings.push(
    `metadata: the image is too large to keep ${what} within the decoder's memory (${Math.round(memoryBytes / 2 ** 20)} MB); the output is 8-bit sRGB`
  )
  return false
}

export function differsBeyond(a: Buffer, b: Buffer, tolerance: number): boolean {
  for (let i = 0; i < a.length; i++) {
    if (Math.abs(a[i]! - b[i]!) > tolerance) return true
  }
  return false
}
