/**
 * Width and height of an encoded output file, read from its header with a few small reads at
 * known offsets: no decoding, nothing parsed beyond fixed fields, every loop bounded. Used to
 * check that a worker's result is an image of a plausible size before it is stored.
 */
import { open, type FileHandle } from 'node:fs/promises'
import type { SniffedType } from '../engine/public'

export interface ImageSize {
  width: number
  height: number
}

/** JPEG segments walked before giving up on finding the frame header. */
const MAX_JPEG_SEGMENTS = 4096
/** TIFF directory entries read (the size tags come early in every writer's first directory). */
const MAX_TIFF_ENTRIES = 512

async function bytesAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length)
  const { bytesRead } = await fh.read(buf, 0, length, position)
  return buf.subarray(0, bytesRead)
}

async function jpegSize(fh: FileHandle): Promise<ImageSize | null> {
  let at = 2
  for (let i = 0; i < MAX_JPEG_SEGMENTS; i++) {
    const head = await bytesAt(fh, at, 9)
    if (head.length < 4 || head[0] !== 0xff) return null
    const marker = head[1]!
    if (marker === 0xff) {
      at += 1 // fill byte
      continue
    }
    // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC): the frame header holds the size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return head.length < 9 ? null : { height: head.readUInt16BE(5), width: head.readUInt16BE(7) }
    }
    if (marker === 0xd9 || marker === 0xda) return null // end of image, or scan data before any frame
    at += 2 + head.readUInt16BE(2)
  }
  return null
}

async function tiffSize(fh: FileHandle): Promise<ImageSize | null> {
  const header = await bytesAt(fh, 0, 8)
  if (header.length < 8) return null
  const le = header[0] === 0x49
  const u16 = (b: Buffer, at: number): number => (le ? b.readUInt16LE(at) : b.readUInt16BE(at))
  const u32 = (b: Buffer, at: number): number => (le ? b.readUInt32LE(at) : b.readUInt32BE(at))
  const ifd = u32(header, 4)
  const countBytes = await bytesAt(fh, ifd, 2)
  if (countBytes.length < 2) return null
  const count = Math.min(u16(countBytes, 0), MAX_TIFF_ENTRIES)
  const entries = await bytesAt(fh, ifd + 2, count * 12)
  let width = 0
  let height = 0
  for (let i = 0; i + 12 <= entries.length; i += 12) {
    const tag = u16(entries, i)
    if (tag !== 256 && tag !== 257) continue
    const type = u16(entries, i + 2)
    const value = type === 3 ? u16(entries, i + 8) : type === 4 ? u32(entries, i + 8) : 0
    if (tag === 256) width = value
    else height = value
  }
  return width > 0 && height > 0 ? { width, height } : null
}

async function webpSize(fh: FileHandle): Promise<ImageSize | null> {
  const b = await bytesAt(fh, 0, 30)
  if (b.length < 30) return null
  const chunk = b.toString('latin1', 12, 16)
  if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) }
  if (chunk === 'VP8 ' && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a) {
    return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff }
  }
  if (chunk === 'VP8L' && b[20] === 0x2f) {
    const bits = b.readUInt32LE(21)
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) }
  }
  return null
}

/** The image's size from its header, for a file already sniffed as `type`; null when the header does not say. */
export async function imageSize(path: string, type: SniffedType): Promise<ImageSize | null> {
  const fh = await open(path, 'r')
  try {
    switch (type) {
      case 'png': {
        const b = await bytesAt(fh, 0, 24)
        return b.length === 24 && b.toString('latin1', 12, 16) === 'IHDR' ? { width: b.readUInt32BE(16), height: b.readUInt32BE(20) } : null
      }
      case 'psd': {
        const b = await bytesAt(fh, 0, 22)
        return b.length === 22 ? { height: b.readUInt32BE(14), width: b.readUInt32BE(18) } : null
      }
      case 'jpeg':
        return await jpegSize(fh)
      case 'tiff':
        return await tiffSize(fh)
      case 'webp':
        return await webpSize(fh)
      default:
        return null
    }
  } finally {
    await fh.close()
  }
}
