/**
 * The store check of files on disk (`clipdesk check`): each file read (bounded), decoded in a
 * sandbox process and segmented by the model in a session of this process's own (the engine's
 * `StandaloneModels`, as a studio worker runs one), never the data folder's engine: a check
 * runs beside the app or a server holding it. An unreadable file is a failing file with its
 * reason.
 */
import { open } from 'node:fs/promises'
import { explainProblem } from '../../shared/explain'
import type { RuleSet, StoreCheck } from '../../shared/store-rules'
import { StandaloneModels, DecodeSandbox, analyseImage, type SegmentDeps, evaluate } from '../engine/public-run'
import { resolveOptions } from '../engine/options'

export interface FileCheck {
  /** The file as given or found (`shop/a.jpg`). */
  file: string
  checks: StoreCheck[]
}

/** The bytes of a file, up to `max` (a larger file is refused with its size). */
async function readBounded(path: string, max: number): Promise<Buffer> {
  const handle = await open(path, 'r')
  try {
    const { size } = await handle.stat()
    if (size > max)
      throw new Error(`the file is ${(size / 1024 / 1024).toFixed(0)} MB, more than the ${max / 1024 / 1024} MB an upload may be`)
    const bytes = Buffer.alloc(size)
    const { bytesRead } = await handle.read(bytes, 0, size, 0)
    return bytes.subarray(0, bytesRead)
  } finally {
    await handle.close()
  }
}

/** The same failure for every rule set: the file could not be checked. */
function unreadable(sets: readonly RuleSet[], reason: string): StoreCheck[] {
  return sets.map((s) => ({ store: s.name, title: s.title, passed: false, failures: [{ rule: 'readable', reason, fix: null }] }))
}

export class FileChecker {
  private readonly sandbox: DecodeSandbox
  private readonly models: StandaloneModels
  private readonly maxBytes: number
  private readonly deps: SegmentDeps

  constructor(opts: { threads?: number; model?: string } = {}) {
    const o = resolveOptions({ dataDir: '' })
    this.maxBytes = o.maxUploadBytes
    this.sandbox = new DecodeSandbox({ maxPixels: o.maxPixels, concurrency: 1 })
    this.models = new StandaloneModels({ threads: opts.threads, defaultModel: opts.model ?? 'medium' })
    this.deps = {
      probe: (bytes) => this.sandbox.probe(bytes),
      decode: (bytes) => this.sandbox.decode(bytes),
      segment: async (image) => {
        const segmenter = await this.models.pool.acquire(null)
        try {
          return await segmenter.segment(image)
        } finally {
          this.models.pool.release(segmenter)
        }
      }
    }
  }

  /** One file against every set: the facts are read once. */
  async check(path: string, shownAs: string, sets: readonly RuleSet[]): Promise<FileCheck> {
    try {
      const bytes = await readBounded(path, this.maxBytes)
      const facts = await analyseImage(bytes, this.deps)
      return { file: shownAs, checks: sets.map((s) => evaluate(s, facts)) }
    } catch (err) {
      const reason = explainProblem((err as Error).message, 'input').message
      return { file: shownAs, checks: unreadable(sets, `it cannot be read: ${reason}`) }
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.sandbox.close(), this.models.close()])
  }
}
