import { readdir, stat } from 'node:fs/promises'
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { IMAGE_EXTENSIONS } from '../cli/inputs'

/**
 * Cleans a path inside a batch as it came from a renderer or a browser (`shoot/day1/a.jpg`):
 * '/' or '\' separated, no empty, `.` or `..` segments, no drive or root. Returns null when
 * nothing is left. The result is used under the destination, so it must never climb out.
 */
export function cleanRelPath(rel: string): string | null {
  const parts = rel
    .replace(/^[a-zA-Z]:/, '')
    .split(/[\\/]+/)
    .map((p) => p.trim())
    .filter((p) => p !== '' && p !== '.' && p !== '..' && !p.includes('\0'))
  return parts.length > 0 ? parts.join('/') : null
}

export interface ExpandedFile {
  path: string
  relPath: string
  /** A file of a dropped folder whose ending is not an image's: listed with the batch, not processed. */
  notImage: boolean
}

async function walk(dir: string, out: Array<{ path: string; notImage: boolean }>): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true })
  entries.sort((a, b) => a.name.localeCompare(b.name))
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue
    const full = join(dir, entry.name)
    if (entry.isDirectory()) await walk(full, out)
    // A folder's own report of an earlier batch is not an input.
    else if (entry.isFile() && !entry.name.startsWith('clipdesk-report.')) {
      out.push({ path: full, notImage: !IMAGE_EXTENSIONS.has(extname(entry.name).toLowerCase()) })
    }
  }
}

/**
 * A dropped file or folder → the files to add. A folder is walked recursively (hidden
 * entries skipped) and mirrored under its own name, so that dropping `shoot/` gives
 * `shoot/day1/a.jpg` in the destination; its files without an image ending come back marked
 * `notImage`. A file named on its own is always tried (the engine reads what it really is).
 */
export async function expandPath(path: string, relPath?: string): Promise<ExpandedFile[]> {
  if (!isAbsolute(path)) throw new Error(`expected an absolute path, got "${path}"`)
  const info = await stat(path).catch(() => null)
  if (!info) throw new Error(`no such file or folder: ${path}`)
  if (info.isFile()) return [{ path, relPath: cleanRelPath(relPath ?? basename(path)) ?? basename(path), notImage: false }]
  if (!info.isDirectory()) throw new Error(`not a file or folder: ${path}`)
  const files: Array<{ path: string; notImage: boolean }> = []
  await walk(path, files)
  const root = cleanRelPath(relPath ?? basename(path)) ?? basename(path)
  return files.map((file) => ({ path: file.path, relPath: `${root}/${relative(path, file.path).split(sep).join('/')}`, notImage: file.notImage }))
}

/**
 * Where a result of an item goes: `<destination>/<rel dir>/<stem>.<ext>`, or
 * `<stem>.<variation>.<ext>` when the job made several variations.
 */
export function outputPath(destination: string, relPath: string, variation: string, ext: string, several: boolean): string {
  const rel = cleanRelPath(relPath) ?? 'image'
  const stem = basename(rel, extname(rel)) || 'image'
  const name = several ? `${stem}.${variation}.${ext}` : `${stem}.${ext}`
  const target = resolve(destination, dirname(rel), name)
  const root = resolve(destination)
  if (target !== root && !target.startsWith(root + sep)) throw new Error(`refusing to write outside the destination: ${target}`)
  return target
}
