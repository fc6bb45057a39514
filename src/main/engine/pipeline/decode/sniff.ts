/**
 * Recognises the image types we accept from their first bytes, without decoding anything,
 * so that an upload whose bytes are not an image is refused (`validation_failed`) before it is queued.
 */
export type SniffedType = 'png' | 'jpeg' | 'webp' | 'gif' | 'avif' | 'tiff' | 'psd' | 'svg'

function startsWith(bytes: Uint8Array, sig: number[], offset = 0): boolean {
  if (bytes.length < offset + sig.length) return false
  return sig.every((b, i) => bytes[offset + i] === b)
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.subarray(start, end)).toString('latin1')
}

export function sniffImageType(bytes: Uint8Array): SniffedType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png'
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg'
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'webp'
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') return 'gif'
  if (ascii(bytes, 4, 8) === 'ftyp' && /^(avif|avis|mif1|msf1|heic|heix)$/.test(ascii(bytes, 8, 12))) return 'avif'
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff'
  if (ascii(bytes, 0, 4) === '8BPS') return 'psd'
  // SVG is text: look for an <svg element near the start, after an optional BOM, XML prolog or comments.
  const head = Buffer.from(bytes.subarray(0, 4096))
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
  if (head.startsWith('<') && /<svg[\s>]/i.test(head)) return 'svg'
  return null
}

/** Width and height from a PSD header (sharp cannot read PSD). */
export function psdDimensions(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes.length < 26 || ascii(bytes, 0, 4) !== '8BPS') return null
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return { height: view.getUint32(14), width: view.getUint32(18) }
}
