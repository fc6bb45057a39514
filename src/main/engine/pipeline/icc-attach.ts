/**
 * An ICC profile added to a PNG or JPEG the engine has just encoded, without touching its
 * pixels. sharp attaches a profile only by converting into it (`withIccProfile`, an lcms pass
 * over every pixel: 0.1–0.3 s on 24 MP) or by keeping its input's; for these two formats writing
 * the profile's container ourselves costs nothing. The bytes are our own encoder's output.
 */
import { withIccChunk } from './decode-psd'

const ICC_MARKER = Buffer.from('ICC_PROFILE\0', 'latin1')
/** A JPEG APP2 segment holds at most 65,533 bytes after its length: minus the marker and sequence bytes. */
const JPEG_CHUNK = 65533 - ICC_MARKER.length - 2

/** A PNG with an iCCP chunk right after IHDR (sharp's PNGs start with the signature and IHDR). */
export function pngWithIcc(png: Buffer, icc: Buffer): Buffer {
  return withIccChunk(png, icc)
}

/**
 * A JPEG with the profile in APP2 `ICC_PROFILE` segments (split when over 64 KB, numbered as
 * the ICC specification's Annex B says), after the JFIF (APP0) and EXIF/XMP (APP1) segments
 * that open the file, where EXIF readers look for them.
 */
export function jpegWithIcc(jpeg: Buffer, icc: Buffer): Buffer {
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) throw new Error('not a JPEG')
  let at = 2
  while (at + 4 <= jpeg.length && jpeg[at] === 0xff && (jpeg[at + 1] === 0xe0 || jpeg[at + 1] === 0xe1)) at += 2 + jpeg.readUInt16BE(at + 2)
  const count = Math.max(1, Math.ceil(icc.length / JPEG_CHUNK))
  if (count > 255) throw new Error('ICC profile too large for a JPEG')
  const segments: Buffer[] = []
  for (let i = 0; i < count; i++) {
    const part = icc.subarray(i * JPEG_CHUNK, (i + 1) * JPEG_CHUNK)
    const head = Buffer.alloc(4)
    head.writeUInt16BE(0xffe2, 0)
    head.writeUInt16BE(2 + ICC_MARKER.length + 2 + part.length, 2)
    segments.push(head, ICC_MARKER, Buffer.from([i + 1, count]), part)
  }
  return Buffer.concat([jpeg.subarray(0, at), ...segments, jpeg.subarray(at)])
}
