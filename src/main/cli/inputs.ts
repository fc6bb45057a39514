import { readdir, stat } from 'node:fs/promises'
import { basename, dirname, extname, join, relative, resolve } from 'node:path'

/** File endings taken from folders (a file named explicitly is always tried). */
export const IMAGE_EXTENSIONS = new Set(['.png', '.jpg', '.jpeg', '.webp', '.gif', '.avif', '.tif', '.tiff', '.psd', '.svg'])

export interface InputFile {
  path: string
  /** Path of the output without extension, relative to --out (folder structure mirrored). */
  outStem: string
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue
    const full = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...(await walk(full)))
    else if (entry.isFile() && IMAGE_EXTENSIONS.has(extname(entry.name).toLowerCase())) out.push(full)
  }
  return out.sort()
}

/** Expands files and folders (recursively) into the images to process. */
export async function collectInputs(inputs: string[]): Promise<InputFile[]> {
  const files: InputFile[] = []
  for (const input of inputs) {
    const abs = resolve(input)
    const info = await stat(abs).catch(() => null)
    if (!info) throw new Error(`no such file or folder: ${input}`)
    if (info.isDirectory()) {
      for (const file of await walk(abs)) {
        const rel = relative(abs, file)
        files.push({ path: file, outStem: join(dirname(rel), basename(rel, extname(rel))) })
      }
    } else {
      files.push({ path: abs, outStem: basename(abs, extname(abs)) })
    }
  }
  return files
}
