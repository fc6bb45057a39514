/**
 * Which paths of a watched folder are inputs, and whether a file's bytes look complete.
 * Pure functions, so that the rules are tested on their own (filter.test.ts).
 */
import { createHash } from 'node:crypto'
import { isImageName } from '../../shared/image-types'
import type { WatchRequest } from '../../shared/watch'
import { sniffImageType } from '../engine/public'
import { isPreviousVersionName } from '../outputs/previous'

/**
 * Names of files still being written or owned by another program: browsers' and download
 * managers' partial files, editors' temp and lock files, Office owner files, OS metadata.
 * (Hidden names, starting with a dot, are ignored as a whole.)
 */
const TEMP_NAME =
  /(^~\$)|(~$)|(\.(tmp|temp|part|partial|crdownload|download|opdownload|!ut|!qb|swp|swx|lock|lck|bak)$)|(^(thumbs\.db|desktop\.ini|icon\r)$)/i

/** The reason `ignoreReason` gives a file without an image ending: the folder's activity says so once. */
export const NOT_AN_IMAGE = 'not an image'

/** Why a path is not an input, or null when it is one. `rel` is '/'-separated inside the folder. */
export function ignoreReason(rel: string, opts: { recursive: boolean; excluded: string[] }): string | null {
  const parts = rel.split('/')
  if (parts.some((p) => p.startsWith('.'))) return 'hidden'
  if (!opts.recursive && parts.length > 1) return 'in a sub-folder (recursion is off)'
  for (const ex of opts.excluded) if (rel === ex || rel.startsWith(`${ex}/`)) return 'in the output or done folder'
  const name = parts[parts.length - 1]!
  if (TEMP_NAME.test(name)) return 'a temporary file'
  // A result's previous version kept by a touch-up (a folder watching another's outputs sees them).
  if (isPreviousVersionName(name)) return 'a previous version kept by a touch-up'
  if (!isImageName(name)) return NOT_AN_IMAGE
  return null
}

/** True when a directory (relative, '/'-separated) is never entered. */
export function ignoreDir(rel: string, opts: { recursive: boolean; excluded: string[] }): boolean {
  if (rel === '') return false
  const parts = rel.split('/')
  if (parts.some((p) => p.startsWith('.'))) return true
  if (!opts.recursive) return true
  return opts.excluded.some((ex) => rel === ex || rel.startsWith(`${ex}/`))
}

/**
 * Whether the bytes of an image look completely written, for the formats whose end can be
 * recognised: PNG has its IEND chunk, JPEG an end-of-image marker after its last scan, WebP
 * (RIFF) as many bytes as its header says, GIF its trailer byte. Other formats: true (the size
 * having stayed the same is all there is to go on).
 *
 * A writer that pauses for longer than the stability wait leaves a file that is stable but
 * cut short; this catches it for the common formats. The format is the engine's one sniffer's
 * (`sniffImageType`).
 */
export function looksComplete(bytes: Buffer): boolean {
  if (bytes.length < 8) return false
  switch (sniffImageType(bytes)) {
    case 'png':
      return bytes.lastIndexOf('IEND', undefined, 'latin1') > 8
    case 'jpeg': {
      // Entropy-coded data never contains FF DA or FF D9 (0xFF is stuffed), so an EOI after the
      // last start-of-scan marks the end of the image.
      const sos = bytes.lastIndexOf(Buffer.from([0xff, 0xda]))
      const eoi = bytes.lastIndexOf(Buffer.from([0xff, 0xd9]))
      return sos >= 0 && eoi > sos
    }
    case 'webp':
      // RIFF <size> WEBP: the size counts the bytes after its own field.
      return bytes.length >= bytes.readUInt32LE(4) + 8
    case 'gif':
      return bytes[bytes.length - 1] === 0x3b
    default:
      return true
  }
}

export { contentHash } from '../engine/public'

/** The settings a file is processed with: the job request only (names and folders do not change the result). */
export function settingsHash(request: WatchRequest): string {
  const canonical = JSON.stringify({ mode: request.mode, params: request.params ?? null, output_format: request.output_format })
  return createHash('sha256').update(canonical).digest('hex')
}
