import { constants } from 'node:fs'
import { copyFile, readdir, stat } from 'node:fs/promises'
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { IMAGE_EXTENSIONS } from '../cli/inputs'
import { containedDir } from '../contained-dir'

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
}

async function walk(dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true })
  entries.sort((a, b) => a.name.localeCompare(b.name))
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue
    const full = join(dir, entry.name)
    if (entry.isDirectory()) await walk(full, out)
    else if (entry.isFile() && IMAGE_EXTENSIONS.has(extname(entry.name).toLowerCase())) out.push(full)
  }
}

/**
 * A dropped file or folder → the images to add. A folder is walked recursively (hidden
 * entries skipped, only image file endings) and mirrored under its own name, so that
 * dropping `shoot/` gives `shoot/day1/a.jpg` in the destination.
 */
export async function expandPath(path: string, relPath?: string): Promise<ExpandedFile[]> {
  if (!isAbsolute(path)) throw new Error(`expected an absolute path, got "${path}"`)
  const info = await stat(path).catch(() => null)
  if (!info) throw new Error(`no such file or folder: ${path}`)
  if (info.isFile()) return [{ path, relPath: cleanRelPath(relPath ?? basename(path)) ?? basename(path) }]
  if (!info.isDirectory()) throw new Error(`not a file or folder: ${path}`)
  const files: string[] = []
  await walk(path, files)
  const root = cleanRelPath(relPath ?? basename(path)) ?? basename(path)
  return files.map((file) => ({ path: file, relPath: `${root}/${relative(path, file).split(sep).join('/')}` }))
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

/**
 * Copies `from` to `target` (inside `root`, the destination) without ever replacing an
 * existing file: when the name is taken (another batch, or two inputs `a.jpg` and `a.png` of
 * one folder), `<stem>-1.<ext>`, `-2`… The folders are made and checked by their real paths, so
 * a symbolic link inside the destination cannot send the file elsewhere; the exclusive copy
 * does not follow a link in the last component either. Returns the path written.
 */
export async function copyUnique(from: string, target: string, root: string): Promise<string> {
  const dir = await containedDir(root, dirname(target))
  const ext = extname(target)
  const name = basename(target, ext)
  for (let n = 0; n < 10_000; n++) {
    const file = n === 0 ? `${name}${ext}` : `${name}-${n}${ext}`
    try {
      // Written in the checked real folder; reported by the name the user chose.
      await copyFile(from, join(dir, file), constants.COPYFILE_EXCL)
      return join(dirname(target), file)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
  }
  throw new Error(`no free file name for ${target}`)
}
