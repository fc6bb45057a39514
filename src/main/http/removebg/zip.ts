/**
 * The `format=zip` answer: a ZIP archive of already-compressed image files, stored (not
 * deflated again: PNG and JPEG do not shrink), made by the same zip library as a batch's
 * download (yazl), in memory: two files of one result.
 */
import { buffer } from 'node:stream/consumers'
import { ZipFile } from 'yazl'

export async function storedZip(files: Array<{ name: string; bytes: Buffer }>): Promise<Buffer> {
  const zip = new ZipFile()
  for (const f of files) zip.addBuffer(f.bytes, f.name, { compress: false, mtime: new Date(0) })
  zip.end()
  return buffer(zip.outputStream)
}
