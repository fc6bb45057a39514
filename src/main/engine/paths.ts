import { mkdirSync } from 'node:fs'
import { join } from 'node:path'

/** Where an engine keeps its files inside its data folder (file helpers of any folder: `file-helpers.ts`). */
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

  /** A job's hint (docs/touch-up.md "Hints"), beside its upload and removed with it. */
  hint(jobId: string): string {
    return join(this.uploads, `${jobId}.hint`)
  }

  /** A job's look-again boxes as JSON (docs/touch-up.md "Look again"), beside its upload and removed with it. */
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
