/**
 * Inputs given as files and folders (a folder dropped on a batch, `clipdesk process` arguments):
 * a folder is walked recursively in name order, hidden entries skipped, and each file comes
 * with its path inside what was given, so that the output folder mirrors it. Files without an
 * image ending (the one list: `src/shared/image-types.ts`) are listed, never processed; a
 * folder's own report of an earlier run (`clipdesk-report.*`) is not an input at all. A file
 * named on its own is always tried (the engine reads what it really is).
 */
import { readdir, stat } from 'node:fs/promises'
import { basename, isAbsolute, join } from 'node:path'
import { isImageName } from '../../shared/image-types'
import { REPORT_PREFIX } from './report'

export interface InputFile {
  /** Absolute path on this machine. */
  path: string
  /** Path inside what was given, '/'-separated (`shoot/day1/a.jpg`); the output folder mirrors its folders. */
  relPath: string
  /** Not an image by its ending: listed, not processed. */
  notImage: boolean
}

async function walk(dir: string, rel: string, out: InputFile[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true })
  entries.sort((a, b) => a.name.localeCompare(b.name))
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue
    const path = join(dir, entry.name)
    const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`
    if (entry.isDirectory()) await walk(path, relPath, out)
    else if (entry.isFile() && !entry.name.startsWith(REPORT_PREFIX)) out.push({ path, relPath, notImage: !isImageName(entry.name) })
  }
}

/**
 * A file or folder (absolute) → its inputs. `under` is the path a folder's files are put under
 * (a batch mirrors a dropped folder under its own name; `clipdesk process` puts them at the top);
 * a file on its own gets `under` or its own name.
 */
export async function expandInput(path: string, under: string): Promise<InputFile[]> {
  if (!isAbsolute(path)) throw new Error(`expected an absolute path, got "${path}"`)
  const info = await stat(path).catch(() => null)
  if (!info) throw new Error(`no such file or folder: ${path}`)
  if (info.isFile()) return [{ path, relPath: under || basename(path), notImage: false }]
  if (!info.isDirectory()) throw new Error(`not a file or folder: ${path}`)
  const files: InputFile[] = []
  await walk(path, under, files)
  return files
}
