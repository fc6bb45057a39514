/**
 * Removes the temp files a killed writer left in a destination. The placer (`place.ts`) writes
 * every file to a hidden temp name first (`.photo.png.1a2b3c4d.clipdesk-part`) and removes it
 * afterwards, whatever happened; only a process killed mid-copy (SIGKILL, a power cut) leaves
 * one. Batches, watched folders and `clipdesk process` sweep their destination when they start
 * or resume.
 *
 * Only names of exactly that form are removed, only regular files, and never through a link:
 * the walk enters real folders only (a link to a folder is not entered), and `unlink` removes a
 * name, never what a link points to. A temp file this process is writing now is left alone
 * (`activeTemps`), and so is one changed in the last `minAgeMs`: another process writing into
 * the same folder (the app and `clipdesk process` with their own data folders) keeps writing
 * its temp file, so a fresh one may be live.
 */
import { lstat, readdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { isTempName } from '../engine/file-helpers'
import { activeTemps } from './place'

/** A temp file untouched this long is no live writer's. */
export const TEMP_MIN_AGE_MS = 60_000
/** The walk stops after this many folders: a sweep is a clean-up, never a long scan. */
const MAX_FOLDERS = 10_000

export { isTempName }

export interface SweepOptions {
  /** @default TEMP_MIN_AGE_MS */
  minAgeMs?: number
  now?: number
}

/** Removes the left temp files under `root` (its sub-folders included); returns the paths removed. Never throws. */
export async function sweepTempFiles(root: string, opts: SweepOptions = {}): Promise<string[]> {
  const minAgeMs = opts.minAgeMs ?? TEMP_MIN_AGE_MS
  const now = opts.now ?? Date.now()
  const removed: string[] = []
  const folders = [root]
  for (let visited = 0; folders.length > 0 && visited < MAX_FOLDERS; visited++) {
    const dir = folders.pop()!
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
    for (const entry of entries) {
      const path = join(dir, entry.name)
      // Dirent types come from the entry itself: a link is neither a folder nor a file here.
      if (entry.isDirectory()) folders.push(path)
      else if (entry.isFile() && isTempName(entry.name) && !activeTemps.has(path)) {
        const info = await lstat(path).catch(() => null)
        if (!info?.isFile() || now - info.mtimeMs < minAgeMs) continue
        await unlink(path).then(
          () => removed.push(path),
          () => undefined
        )
      }
    }
  }
  return removed
}
