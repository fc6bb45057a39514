import { readdir, stat } from 'node:fs/promises'
import { basename, dirname, extname, join, relative, resolve } from 'node:path'

/** File endings taken from folders (a file named explicitly is always tried). */
export const IMAGE_EXTENSIONS = new Set(['.png', '.jpg', '.jpeg', '.webp', '.gif', '.avif', '.tif', '.tiff', '.psd', '.svg'])

export interface InputFile {
  path: string
  /** Path of the output without extension, relative to --out (folder structure mirrored). */
  outStem: string
}

export interface CollectedInputs {
  images: InputFile[]
  /** Files of the given folders that are not images by their ending: listed, never processed. */
  notImages: string[]
}

async function walk(dir: string, images: string[], others: string[]): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue
    const full = join(dir, entry.name)
    if (entry.isDirectory()) await walk(full, images, others)
    else if (entry.isFile()) (IMAGE_EXTENSIONS.has(extname(entry.name).toLowerCase()) ? images : others).push(full)
  }
}

/**
 * Expands files and folders (recursively) into the images to process. A folder's own report
 * files (`clipdesk-report.*`) are not counted as skipped inputs.
 */
export async function collectInputs(inputs: string[]): Promise<CollectedInputs> {
  const images: InputFile[] = []
  const notImages: string[] = []
  for (const input of inputs) {
    const abs = resolve(input)
    const info = await stat(abs).catch(() => null)
    if (!info) throw new Error(`no such file or folder: ${input}`)
    if (info.isDirectory()) {
      const found: string[] = []
      const others: string[] = []
      await walk(abs, found, others)
      for (const file of found.sort()) {
        const rel = relative(abs, file)
        images.push({ path: file, outStem: join(dirname(rel), basename(rel, extname(rel))) })
      }
      notImages.push(...others.filter((f) => !basename(f).startsWith('clipdesk-report.')).sort())
    } else {
      images.push({ path: abs, outStem: basename(abs, extname(abs)) })
    }
  }
  return { images, notImages }
}
