import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** Where an engine keeps its files inside its data folder. */
export class DataPaths {
  readonly db: string
  readonly uploads: string
  readonly results: string

  constructor(readonly root: string) {
    this.db = join(root, 'clipdesk.db')
    this.uploads = join(root, 'uploads')
    this.results = join(root, 'results')
    for (const dir of [root, this.uploads, this.results]) mkdirSync(dir, { recursive: true })
  }

  upload(jobId: string): string {
    return join(this.uploads, jobId)
  }

  /** A job's hint (docs/review.md "Hints"), beside its upload and removed with it. */
  hint(jobId: string): string {
    return join(this.uploads, `${jobId}.hint`)
  }

  /** A job's look-again boxes as JSON (docs/review.md "Look again"), beside its upload and removed with it. */
  regions(jobId: string): string {
    return join(this.uploads, `${jobId}.regions`)
  }

  resultDir(jobId: string): string {
    return join(this.results, jobId)
  }

  result(jobId: string, variation: string, ext: string): string {
    return join(this.results, jobId, resultName(variation, ext))
  }
}

/** A result's file name in its job's folder. */
export function resultName(variation: string, ext: string): string {
  return `${variation}.${ext}`
}

/** Temp names end in this, so a sweep can find leftovers of an interrupted write. */
export const PARTIAL_SUFFIX = '.part'

/**
 * Writes a file under a temp name and renames it into place, so that nobody ever sees a
 * half-written file under the final name (rename is atomic within one file system).
 */
export async function writeFileAtomic(path: string, data: Uint8Array): Promise<void> {
  const tmp = `${path}.${process.pid}.${Date.now()}${PARTIAL_SUFFIX}`
  try {
    await writeFile(tmp, data)
    await rename(tmp, path)
  } catch (err) {
    await rm(tmp, { force: true })
    throw err
  }
}

export function writeFileAtomicSync(path: string, data: Uint8Array): void {
  const tmp = `${path}.${process.pid}.${Date.now()}${PARTIAL_SUFFIX}`
  try {
    writeFileSync(tmp, data)
    renameSync(tmp, path)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw err
  }
}
