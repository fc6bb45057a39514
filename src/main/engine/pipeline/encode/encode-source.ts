/**
 * The pixels an encoder starts from, with the profile and metadata every output carries:
 *
 * - the ICC profile the pixels are in: the input's own for pixels kept in its space
 *   (`NativeImage`), else sRGB. Always attached, also with `metadata=strip`: it is what the
 *   pixel values mean. A mask (grey, no colour) carries none.
 * - the input's XMP packet and EXIF fields (already chosen for the job's `metadata` setting),
 *   where given. libvips writes EXIF into JPEG, PNG (eXIf) and WebP, not into TIFF.
 *
 * sharp attaches a profile only by converting into it (`withIccProfile`, an lcms pass over every
 * pixel, which would also read the input's untrusted profile here) or by keeping its input's
 * (`keepIccProfile`); so the profile is added to the encoded bytes afterwards instead
 * (`encoded-blocks.ts`), which costs nothing and reads nothing. 16-bit pixels stay 16-bit for
 * PNG and TIFF and are rounded to 8 bits for the formats that have no more (JPEG, WebP).
 */
import sharp, { type Sharp } from 'sharp'
import type { OutputFormat } from '../../../../shared/api'
import { narrow } from '../metadata/native-colour'
import type { ExifFields } from '../metadata/exif-fields'
import type { NativeImage, RgbaImage } from '../compose/variation'

/** Formats that can hold 16 bits per channel (as far as sharp writes them). */
const DEEP_FORMATS: ReadonlySet<OutputFormat> = new Set(['png', 'tiff'])

let srgbProfile: Promise<Buffer> | null = null

/** The bytes of the sRGB profile sharp attaches (libvips's own, a few hundred bytes). */
export function srgbProfileBytes(): Promise<Buffer> {
  srgbProfile ??= sharp({ create: { width: 1, height: 1, channels: 3, background: '#000000' } })
    .withIccProfile('srgb')
    .png()
    .toBuffer()
    .then((png) => sharp(png).metadata())
    .then((meta) => {
      if (!meta.icc) throw new Error('sharp attached no sRGB profile')
      return meta.icc
    })
  return srgbProfile
}

export interface SourceOptions {
  /** The image is an opaque grey (the mask): one channel, no profile. */
  greyscale?: boolean
  /** The same image in the input's own space and depth. */
  native?: NativeImage
  /** XMP packet to write. */
  xmp?: string | null
  /** EXIF fields to write (JPEG, PNG, WebP: libvips writes no EXIF into TIFF). */
  exif?: ExifFields | null
}

/** The EXIF of an output, as sharp's `withExif` takes it (libvips numbers the Exif sub-IFD 2, GPS 3). */
function exifIfds(exif: ExifFields): Record<string, Record<string, string>> {
  const ifds: Record<string, Record<string, string>> = { IFD0: exif.image, IFD2: exif.photo }
  if (Object.keys(exif.gps).length > 0) ifds.IFD3 = exif.gps
  return ifds
}

export interface EncodeSource {
  /** The pixels (with XMP and EXIF), ready for a format's options. */
  pipeline: Sharp
  /** The profile to add to the encoded bytes (`encoded-blocks.ts`); null: none (a grey mask). */
  iccAfter: Buffer | null
}

/** A sharp pipeline holding the image's pixels, XMP and EXIF, and the profile to add to its bytes. */
export async function encodeSource(img: RgbaImage, format: OutputFormat, opts: SourceOptions): Promise<EncodeSource> {
  let pipeline: Sharp
  let iccAfter: Buffer | null = null
  if (opts.greyscale) {
    pipeline = sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } })
      .removeAlpha()
      .toColourspace('b-w')
  } else if (opts.native) {
    pipeline = nativePixels(opts.native, DEEP_FORMATS.has(format))
    iccAfter = opts.native.icc ?? (await srgbProfileBytes())
  } else {
    pipeline = sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } })
    iccAfter = await srgbProfileBytes()
  }
  if (opts.xmp) pipeline = pipeline.withXmp(opts.xmp)
  if (opts.exif && format !== 'tiff') pipeline = pipeline.withExif(exifIfds(opts.exif))
  return { pipeline, iccAfter }
}

/** The pixels as they are, 16-bit kept when the format can hold it; no profile. */
function nativePixels(native: NativeImage, deepFormat: boolean): Sharp {
  const raw = { width: native.width, height: native.height, channels: 4 as const }
  if (native.depth === 16 && deepFormat) {
    return sharp(new Uint16Array(native.data.buffer, native.data.byteOffset, native.data.length / 2), { raw }).toColourspace('rgb16')
  }
  return sharp(native.depth === 16 ? narrow(native.data) : native.data, { raw })
}
