/**
 * Blocks added to an image the engine has just encoded, without touching its pixels: an ICC
 * profile (PNG, JPEG, WebP, TIFF) and an IPTC-IIM record (JPEG).
 *
 * sharp attaches a profile only by converting into it (`withIccProfile`, an lcms pass over every
 * pixel: 0.1–0.3 s on 24 MP) or by keeping its input's, and has no way to write IPTC; for these
 * formats writing the container ourselves costs nothing. The images are our own encoder's
 * output; the blocks are written as they are (an input's IPTC is bounded in size at decode).
 */
import { withIccChunk } from '../decode/decode-psd'

const ICC_MARKER = Buffer.from('ICC_PROFILE\0', 'latin1')
/** A JPEG APP2 segment holds at most 65,533 bytes after its length: minus the marker and sequence bytes. */
const JPEG_CHUNK = 65533 - ICC_MARKER.length - 2
const PHOTOSHOP_MARKER = Buffer.from('Photoshop 3.0\0', 'latin1')
/** Image resource id of IPTC-NAA records (Adobe's "Photoshop File Formats" specification). */
export const RESOURCE_IPTC = 1028
/** The most IPTC one JPEG APP13 segment holds (with its headers). */
export const MAX_IPTC_BYTES = 65533 - PHOTOSHOP_MARKER.length - 12 - 1

/** A PNG with an iCCP chunk right after IHDR (sharp's PNGs start with the signature and IHDR). */
export function pngWithIcc(png: Buffer, icc: Buffer): Buffer {
  return withIccChunk(png, icc)
}

/**
 * A JPEG with `blocks` added after the JFIF (APP0) and EXIF/XMP (APP1) segments that open the
 * file, where EXIF readers look for them: the profile in APP2 `ICC_PROFILE` segments (split when
 * over 64 KB, numbered as the ICC specification's Annex B says), the IPTC record in an APP13
 * `Photoshop 3.0` segment (resource 1028), as Photoshop and exiftool write it.
 */
export function jpegWithBlocks(jpeg: Buffer, blocks: { icc?: Buffer | null; iptc?: Buffer | null }): Buffer {
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) throw new Error('not a JPEG')
  let at = 2
  while (at + 4 <= jpeg.length && jpeg[at] === 0xff && (jpeg[at + 1] === 0xe0 || jpeg[at + 1] === 0xe1)) at += 2 + jpeg.readUInt16BE(at + 2)
  const segments: Buffer[] = []
  if (blocks.icc) segments.push(...iccSegments(blocks.icc))
  if (blocks.iptc) segments.push(iptcSegment(blocks.iptc))
  return Buffer.concat([jpeg.subarray(0, at), ...segments, jpeg.subarray(at)])
}

function segment(marker: number, ...parts: Buffer[]): Buffer {
  const head = Buffer.alloc(4)
  head.writeUInt16BE(marker, 0)
  head.writeUInt16BE(2 + parts.reduce((n, p) => n + p.length, 0), 2)
  return Buffer.concat([head, ...parts])
}

function iccSegments(icc: Buffer): Buffer[] {
  const count = Math.max(1, Math.ceil(icc.length / JPEG_CHUNK))
  if (count > 255) throw new Error('ICC profile too large for a JPEG')
  const out: Buffer[] = []
  for (let i = 0; i < count; i++)
    out.push(segment(0xffe2, ICC_MARKER, Buffer.from([i + 1, count]), icc.subarray(i * JPEG_CHUNK, (i + 1) * JPEG_CHUNK)))
  return out
}

function iptcSegment(iptc: Buffer): Buffer {
  if (iptc.length > MAX_IPTC_BYTES) throw new Error('IPTC record too large for a JPEG')
  return segment(0xffed, PHOTOSHOP_MARKER, imageResource(RESOURCE_IPTC, iptc))
}

/** One Photoshop image resource block: '8BIM', id, empty Pascal name (2 bytes), size, data padded to even length. */
export function imageResource(id: number, data: Buffer): Buffer {
  const block = Buffer.alloc(12 + data.length + (data.length & 1))
  block.write('8BIM', 0, 'latin1')
  block.writeUInt16BE(id, 4)
  block.writeUInt32BE(data.length, 8)
  data.copy(block, 12)
  return block
}

/**
 * A WebP with the profile in an ICCP chunk, which must follow a VP8X header whose ICC flag is
 * set (WebP container specification). A simple file (a lone `VP8 ` or `VP8L` chunk, as libwebp
 * writes an image without metadata or alpha plane) gets that header, its canvas size given.
 */
export function webpWithIcc(webp: Buffer, icc: Buffer, size: { width: number; height: number }): Buffer {
  if (webp.toString('latin1', 0, 4) !== 'RIFF' || webp.toString('latin1', 8, 12) !== 'WEBP') throw new Error('not a WebP')
  const first = webp.toString('latin1', 12, 16)
  let header: Buffer
  let rest: Buffer
  if (first === 'VP8X') {
    header = Buffer.from(webp.subarray(12, 30))
    header[8] = header[8]! | ICC_FLAG
    rest = webp.subarray(30)
  } else if (first === 'VP8 ' || first === 'VP8L') {
    header = Buffer.alloc(18)
    header.write('VP8X', 0, 'latin1')
    header.writeUInt32LE(10, 4)
    // A lossless bitstream says whether it uses alpha (bit 28 after its signature byte).
    const alpha = first === 'VP8L' && ((webp.readUInt32LE(21) >>> 28) & 1) === 1
    header[8] = ICC_FLAG | (alpha ? ALPHA_FLAG : 0)
    header.writeUIntLE(size.width - 1, 12, 3)
    header.writeUIntLE(size.height - 1, 15, 3)
    rest = webp.subarray(12)
  } else {
    throw new Error(`unexpected WebP chunk ${first}`)
  }
  const chunk = Buffer.alloc(8 + icc.length + (icc.length & 1))
  chunk.write('ICCP', 0, 'latin1')
  chunk.writeUInt32LE(icc.length, 4)
  icc.copy(chunk, 8)
  const riff = Buffer.alloc(12)
  riff.write('RIFF', 0, 'latin1')
  riff.writeUInt32LE(4 + header.length + chunk.length + rest.length, 4)
  riff.write('WEBP', 8, 'latin1')
  return Buffer.concat([riff, header, chunk, rest])
}

/** VP8X flag bits. */
const ICC_FLAG = 0x20
const ALPHA_FLAG = 0x10

/** TIFF tag of an embedded ICC profile, and the UNDEFINED (bytes) field type. */
const TIFF_TAG_ICC = 34675
const TIFF_UNDEFINED = 7

/**
 * A TIFF with the profile in its first directory's ICC tag. The profile and a copy of the
 * directory with the tag added (entries stay sorted by tag) are appended, and the header points
 * at the new directory; every other offset in the file stays valid. Classic TIFF, either byte
 * order, as libvips writes it.
 */
export function tiffWithIcc(tiff: Buffer, icc: Buffer): Buffer {
  const order = tiff.toString('latin1', 0, 2)
  if (order !== 'II' && order !== 'MM') throw new Error('not a TIFF')
  const le = order === 'II'
  const u16 = (at: number): number => (le ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at))
  const u32 = (at: number): number => (le ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at))
  if (u16(2) !== 42) throw new Error('not a classic TIFF')
  const ifd = u32(4)
  const count = u16(ifd)
  const entries: Buffer[] = []
  for (let i = 0; i < count; i++) {
    const entry = tiff.subarray(ifd + 2 + i * 12, ifd + 14 + i * 12)
    if (u16(ifd + 2 + i * 12) !== TIFF_TAG_ICC) entries.push(entry)
  }
  const next = tiff.subarray(ifd + 2 + count * 12, ifd + 6 + count * 12)

  const iccAt = tiff.length + (tiff.length & 1)
  const ifdAt = iccAt + icc.length + (icc.length & 1)
  const entry = Buffer.alloc(12)
  const put16 = (b: Buffer, v: number, at: number): number => (le ? b.writeUInt16LE(v, at) : b.writeUInt16BE(v, at))
  const put32 = (b: Buffer, v: number, at: number): number => (le ? b.writeUInt32LE(v, at) : b.writeUInt32BE(v, at))
  put16(entry, TIFF_TAG_ICC, 0)
  put16(entry, TIFF_UNDEFINED, 2)
  put32(entry, icc.length, 4)
  put32(entry, iccAt, 8)
  const tagOf = (e: Buffer): number => (le ? e.readUInt16LE(0) : e.readUInt16BE(0))
  const at = entries.findIndex((e) => tagOf(e) > TIFF_TAG_ICC)
  entries.splice(at < 0 ? entries.length : at, 0, entry)
  const head = Buffer.alloc(2)
  put16(head, entries.length, 0)

  const out = Buffer.concat([
    tiff,
    Buffer.alloc(iccAt - tiff.length),
    icc,
    Buffer.alloc(ifdAt - iccAt - icc.length),
    head,
    ...entries,
    next
  ])
  put32(out, ifdAt, 4)
  return out
}
