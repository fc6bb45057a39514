/**
 * Files from drag-and-drop and file inputs, with their path inside what was dropped:
 * a dropped folder is walked (recursively) so its structure is mirrored in the output.
 */
import { imageMimeOf, isImageName } from '../../../shared/image-types'

/** A file to be added to a batch and where it sits in the dropped structure (`shoot/a.jpg`). */
export interface PickedFile {
  file: File
  relPath: string
  /** Not an image by its ending: listed with the batch (and in its report), never sent. */
  notImage?: boolean
}

function picked(file: File, relPath: string): PickedFile {
  return isImageName(file.name) ? { file, relPath } : { file, relPath, notImage: true }
}

/** Not an image by its ending (the one list: src/shared/image-types.ts). */
export { isImageName }

/** MIME type for the upload: the browser's when it knows one, else from the file ending. */
export function mimeOf(file: File): string {
  return file.type || (imageMimeOf(file.name) ?? 'application/octet-stream')
}

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject))
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject))
}

async function walk(entry: FileSystemEntry, prefix: string, out: PickedFile[]): Promise<void> {
  const rel = prefix ? `${prefix}/${entry.name}` : entry.name
  if (entry.isFile) {
    if (!entry.name.startsWith('.')) out.push(picked(await fileOf(entry as FileSystemFileEntry), rel))
    return
  }
  if (!entry.isDirectory || entry.name.startsWith('.')) return
  const reader = (entry as FileSystemDirectoryEntry).createReader()
  // readEntries answers in chunks (100 at a time in Chromium) until an empty one.
  const children: FileSystemEntry[] = []
  for (let chunk = await readEntries(reader); chunk.length > 0; chunk = await readEntries(reader)) children.push(...chunk)
  children.sort((a, b) => a.name.localeCompare(b.name))
  for (const child of children) await walk(child, rel, out)
}

/** Everything dropped: files as they are, folders walked. Entries must be taken synchronously, in the drop handler. */
export async function filesFromDrop(items: DataTransferItemList): Promise<PickedFile[]> {
  const entries: FileSystemEntry[] = []
  const loose: File[] = []
  for (const item of Array.from(items)) {
    if (item.kind !== 'file') continue
    const entry = item.webkitGetAsEntry?.()
    if (entry) entries.push(entry)
    else {
      const f = item.getAsFile()
      if (f) loose.push(f)
    }
  }
  const out: PickedFile[] = loose.filter((f) => !f.name.startsWith('.')).map((file) => picked(file, file.name))
  for (const entry of entries) await walk(entry, '', out)
  return out
}

/** Files of an <input type=file> (a folder input gives `webkitRelativePath`, e.g. `shoot/a.jpg`). */
export function filesFromInput(files: FileList | null): PickedFile[] {
  return Array.from(files ?? [])
    .filter((file) => !file.name.startsWith('.'))
    .map((file) => picked(file, file.webkitRelativePath || file.name))
    .sort((a, b) => a.relPath.localeCompare(b.relPath)) // a folder input lists in no useful order
}
