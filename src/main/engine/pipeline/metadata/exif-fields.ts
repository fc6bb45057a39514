/**
 * An input's EXIF, as an EXIF reader gives it (groups `Image`, `Photo`, `GPSInfo` of decoded
 * values, named as in exiv2's tag list — the shape of `exif-reader`), turned into the plain
 * strings sharp's `withExif` writes (`ExifFields`).
 *
 * Kept: text, numbers and lists of numbers, dates. Left out: what describes the old file
 * rather than the photo — its layout (sizes, strips, compression, thumbnail, IFD pointers), its
 * orientation (applied to the pixels at decode), its colour space tag (the output has its own
 * profile) — and undecoded byte blocks (maker notes, versions, user comments), which a writer
 * could not reproduce faithfully. Strings are cut at 2,000 characters and 200 fields per group.
 */

/** Decoded EXIF groups: tag name → value (string, number, number[], Date or bytes). */
export type DecodedExif = Partial<Record<'Image' | 'Photo' | 'GPSInfo', Record<string, unknown> | undefined>>

/**
 * EXIF fields as plain strings, in the form sharp's `withExif` writes them (ASCII as is,
 * rationals `n/d`, several values separated by spaces), by libvips's tag names.
 */
export interface ExifFields {
  /** The image's own IFD: Make, Model, Artist, Copyright, DateTime, Software… (never Orientation). */
  image: Record<string, string>
  /** The Exif sub-IFD: LensModel, ExposureTime, FNumber, DateTimeOriginal… */
  photo: Record<string, string>
  /** The GPS IFD: written only with `metadata=keep-gps`. */
  gps: Record<string, string>
}

const LEFT_OUT = new Set([
  'Orientation',
  'ImageWidth',
  'ImageLength',
  'BitsPerSample',
  'Compression',
  'PhotometricInterpretation',
  'StripOffsets',
  'SamplesPerPixel',
  'RowsPerStrip',
  'StripByteCounts',
  'PlanarConfiguration',
  'YCbCrSubSampling',
  'YCbCrPositioning',
  'JPEGInterchangeFormat',
  'JPEGInterchangeFormatLength',
  'ExifTag',
  'GPSTag',
  'InteroperabilityTag',
  'PixelXDimension',
  'PixelYDimension',
  'ColorSpace',
  'XResolution',
  'YResolution',
  'ResolutionUnit'
])
const MAX_TEXT = 2000
const MAX_FIELDS = 200
/** Tag names are identifiers; anything else is not a tag libvips knows. */
const TAG_NAME = /^[A-Za-z][A-Za-z0-9]{0,63}$/

export function exifFields(decoded: DecodedExif): ExifFields | null {
  const fields: ExifFields = { image: group(decoded.Image), photo: group(decoded.Photo), gps: group(decoded.GPSInfo) }
  const any = Object.keys(fields.image).length + Object.keys(fields.photo).length + Object.keys(fields.gps).length
  return any > 0 ? fields : null
}

function group(values: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  if (!values) return out
  let count = 0
  for (const [name, value] of Object.entries(values)) {
    if (count >= MAX_FIELDS) break
    if (LEFT_OUT.has(name) || !TAG_NAME.test(name)) continue
    const text = asText(value)
    if (text === null) continue
    out[name] = text
    count++
  }
  return out
}

function asText(value: unknown): string | null {
  if (typeof value === 'string') {
    const text = value.replaceAll('\0', '').trim()
    return text === '' ? null : text.slice(0, MAX_TEXT)
  }
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : exifDate(value)
  if (Array.isArray(value) && value.length > 0 && value.length <= 16 && value.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    return value.join(' ')
  }
  return null
}

/** EXIF's `YYYY:MM:DD HH:MM:SS`. The reader takes the zone-less EXIF time as UTC, so UTC fields give it back unchanged. */
function exifDate(d: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0')
  return `${d.getUTCFullYear()}:${two(d.getUTCMonth() + 1)}:${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`
}
