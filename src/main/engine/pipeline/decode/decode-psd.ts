/**
 * PSD inputs: the document's composite image, read by ag-psd (sharp cannot read PSD).
 *
 * Layer pixels are skipped (`skipLayerImageData`): the composite is what the document looks
 * like, and decoding every layer would cost memory for nothing. ag-psd gives the composite as
 * RGBA at the file's depth (8-bit bytes, 16-bit words, 32-bit linear floats); we bring it to
 * 8-bit for the model (a 16-bit document's own words are kept for the outputs). An embedded ICC profile (image resource 1039, which ag-psd does not read) is honoured:
 * the pixels are handed to sharp with that profile so they come out in sRGB like every input.
 */
import { crc32, deflateSync } from 'node:zlib'
import type { initializeCanvas, readPsd } from 'ag-psd'
import { JobFailure } from '../../errors'
import { agPsd } from './ag-psd'
import { errorText } from '../../../../shared/errors'

export interface PsdComposite {
  /** RGBA, 8 bits per channel. */
  data: Buffer
  width: number
  height: number
  /** The profile the pixels are in, when the document embeds one. */
  icc: Buffer | null
  /** A 16-bit document's own RGBA words (native-endian), before they were brought to 8 bits. */
  words: Buffer | null
  /** The document's XMP packet, as ag-psd read it. */
  xmp: string | null
}

const PSD_SIGNATURE = '8BPS'
/** ag-psd's image data factory (typed with the DOM's ImageData, which Node code does not have). */
type CreateImageData = NonNullable<Parameters<typeof initializeCanvas>[1]>
/** Image resource ids (Adobe's "Photoshop File Formats" specification). */
const RESOURCE_ICC_PROFILE = 1039

/**
 * ag-psd makes its 8-bit image data through a canvas unless told otherwise; in Node there is no
 * canvas, and plain objects are all we need. Set before each read (cheap) so that another user
 * of ag-psd in the process cannot leave it unset.
 */
function plainImageData(): void {
  agPsd().initializeCanvas(
    () => {
      throw new Error('no canvas in the engine: ag-psd must be used with useImageData')
    },
    ((width: number, height: number) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) })) as unknown as CreateImageData
  )
}

/** The composite image of a PSD/PSB. Throws `unsupported_image` for anything ag-psd cannot read. */
export function readPsdComposite(bytes: Buffer): PsdComposite {
  plainImageData()
  let psd: ReturnType<typeof readPsd>
  try {
    psd = agPsd().readPsd(bytes, {
      skipLayerImageData: true,
      skipThumbnail: true,
      skipLinkedFilesData: true,
      useImageData: true
    })
  } catch (cause) {
    throw new JobFailure('unsupported_image', `the psd image cannot be decoded: ${errorText(cause)}`, {
      cause
    })
  }
  const pixels = psd.imageData
  if (!pixels || pixels.width !== psd.width || pixels.height !== psd.height) {
    throw new JobFailure('unsupported_image', 'the psd image has no composite image')
  }
  const words = pixels.data instanceof Uint16Array ? Buffer.from(pixels.data.buffer, pixels.data.byteOffset, pixels.data.byteLength) : null
  const xmp = typeof psd.imageResources?.xmpMetadata === 'string' ? psd.imageResources.xmpMetadata : null
  return { data: to8bit(pixels.data), width: pixels.width, height: pixels.height, icc: iccProfile(bytes), words, xmp }
}

/** 8-bit copy of ag-psd's RGBA data at any depth. */
function to8bit(src: Uint8Array | Uint8ClampedArray | Uint16Array | Float32Array): Buffer {
  if (src instanceof Uint8Array || src instanceof Uint8ClampedArray) return Buffer.from(src.buffer, src.byteOffset, src.byteLength)
  const out = Buffer.allocUnsafe(src.length)
  if (src instanceof Uint16Array) {
    for (let i = 0; i < src.length; i++) out[i] = (src[i]! * 255 + 32767) / 65535
    return out
  }
  // 32-bit documents hold linear light; colour channels get the sRGB transfer curve, alpha not.
  for (let i = 0; i < src.length; i++) {
    const v = Math.min(1, Math.max(0, src[i]!)) // NaN → 0
    out[i] = Math.round(255 * ((i & 3) === 3 ? v : linearToSrgb(v)))
  }
  return out
}

function linearToSrgb(v: number): number {
  return v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055
}

/**
 * The ICC profile of the image resources section, if any. Layout: header (26 bytes), colour
 * mode data (u32 length + data), image resources (u32 length, then blocks of '8BIM', u16 id,
 * Pascal name padded to even length, u32 size, data padded to even length).
 */
export function iccProfile(bytes: Buffer): Buffer | null {
  if (bytes.length < 34 || bytes.toString('latin1', 0, 4) !== PSD_SIGNATURE) return null
  let at = 26
  at += 4 + bytes.readUInt32BE(at)
  if (at + 4 > bytes.length) return null
  const end = Math.min(bytes.length, at + 4 + bytes.readUInt32BE(at))
  return imageResourceIn(bytes, at + 4, end, RESOURCE_ICC_PROFILE)
}

/** Resource id of IPTC-NAA records. */
const RESOURCE_IPTC = 1028
const PHOTOSHOP_IRB = 'Photoshop 3.0\0'

/**
 * The IPTC-IIM record of an input's IPTC block as libvips gives it: a JPEG's APP13 payload
 * (`Photoshop 3.0` and image resource blocks, of which only resource 1028 is IPTC), or the
 * record itself (TIFF). Null when it is neither.
 */
export function iptcRecord(block: Buffer): Buffer | null {
  if (block.length > 0 && block[0] === 0x1c) return block
  if (block.toString('latin1', 0, PHOTOSHOP_IRB.length) !== PHOTOSHOP_IRB) return null
  const record = imageResourceIn(block, PHOTOSHOP_IRB.length, block.length, RESOURCE_IPTC)
  return record && record[0] === 0x1c ? record : null
}

/** The data of resource `wanted` among the image resource blocks in bytes[at, end). */
function imageResourceIn(bytes: Buffer, at: number, end: number, wanted: number): Buffer | null {
  while (at + 12 <= end) {
    if (bytes.toString('latin1', at, at + 4) !== '8BIM') return null
    const id = bytes.readUInt16BE(at + 4)
    const nameLength = bytes[at + 6]!
    at += 6 + ((nameLength + 2) & ~1) // length byte + name, padded to even
    if (at + 4 > end) return null
    const size = bytes.readUInt32BE(at)
    at += 4
    if (at + size > end) return null
    if (id === wanted && size > 0) return bytes.subarray(at, at + size)
    at += (size + 1) & ~1
  }
  return null
}

/**
 * A PNG with `icc` embedded (an iCCP chunk right after IHDR), so that sharp converts the pixels
 * from that profile. `png` is a PNG sharp wrote, which starts with the signature and IHDR.
 */
export function withIccChunk(png: Buffer, icc: Buffer): Buffer {
  const afterIhdr = 8 + 8 + 13 + 4
  const body = Buffer.concat([Buffer.from('icc\0\0', 'latin1'), deflateSync(icc)])
  const chunk = Buffer.alloc(12 + body.length)
  chunk.writeUInt32BE(body.length, 0)
  chunk.write('iCCP', 4, 'latin1')
  body.copy(chunk, 8)
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + body.length)), 8 + body.length)
  return Buffer.concat([png.subarray(0, afterIhdr), chunk, png.subarray(afterIhdr)])
}
