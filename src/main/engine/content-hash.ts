/**
 * The one content hash: SHA-256 of a file's bytes, hex. The mask cache keys inputs by it, a
 * watched folder recognises content it already processed by it, a touch-up checks its source
 * and the model registry names a model file by it.
 */
import { createHash } from 'node:crypto'

export function contentHash(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex')
}
