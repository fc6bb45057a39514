/**
 * The machine's optimised copy of a model: the graph ONNX Runtime builds at its highest
 * optimisation level (fused nodes, weights converted and laid out for this CPU's kernels),
 * saved once in ONNX Runtime's own format and loaded from then on with its bytes used in place.
 * A session from it starts in about a tenth of the time and without a second copy of the
 * weights (figures in docs/pipeline.md, "Session settings"). It holds CPU-specific layouts, so
 * it is named by the machine's fingerprint (`machine.ts`) as well as the model; it serves the
 * CPU only (a GPU provider gets the model itself).
 *
 * Files: `<cache>/models/<model id>-<fingerprint>.ort` and a `.json` beside it with its SHA-256,
 * written last, so a file without its record (an interrupted write) is never used. Older copies
 * of the same model (another fingerprint: a new ONNX Runtime, another CPU) are removed when a
 * new one is saved.
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface OptimizedModelRecord {
  sha256: string
  bytes: number
  /** The model id and fingerprint it was made for. */
  model: string
  fingerprint: string
  createdAt: string
}

export class OptimizedModels {
  readonly dir: string

  constructor(cacheDir: string) {
    this.dir = join(cacheDir, 'models')
  }

  /** The saved copy for `model` on this machine, when there is a complete one. */
  find(model: string, fingerprint: string): { path: string; record: OptimizedModelRecord } | null {
    const base = this.base(model, fingerprint)
    try {
      const record = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as OptimizedModelRecord
      const size = statSync(`${base}.ort`).size
      if (typeof record.sha256 !== 'string' || record.bytes !== size) return null
      return { path: `${base}.ort`, record }
    } catch {
      return null
    }
  }

  /** A temporary path for ONNX Runtime to write the optimised model to (then `commit` or `discard`). */
  scratchPath(model: string, fingerprint: string): string | null {
    try {
      mkdirSync(this.dir, { recursive: true })
    } catch {
      return null // a read-only cache folder: run without the optimised copy
    }
    return `${this.base(model, fingerprint)}.${randomUUID().slice(0, 8)}.tmp.ort`
  }

  /** Moves a written scratch file into place with its record (gives its path); removes copies made for other fingerprints. */
  commit(scratch: string, model: string, fingerprint: string, sha256: string): string {
    const base = this.base(model, fingerprint)
    const bytes = statSync(scratch).size
    renameSync(scratch, `${base}.ort`)
    const record: OptimizedModelRecord = { sha256, bytes, model, fingerprint, createdAt: new Date().toISOString() }
    writeFileSync(`${base}.json.tmp`, JSON.stringify(record))
    renameSync(`${base}.json.tmp`, `${base}.json`)
    for (const name of this.entries()) {
      if (name.startsWith(`${safe(model)}-`) && !name.startsWith(`${safe(model)}-${fingerprint}.`))
        rmSync(join(this.dir, name), { force: true })
    }
    return `${base}.ort`
  }

  discard(path: string): void {
    rmSync(path, { force: true })
  }

  /** Forgets a saved copy (it failed to load). */
  remove(model: string, fingerprint: string): void {
    const base = this.base(model, fingerprint)
    rmSync(`${base}.json`, { force: true })
    rmSync(`${base}.ort`, { force: true })
  }

  private entries(): string[] {
    try {
      return readdirSync(this.dir)
    } catch {
      return []
    }
  }

  private base(model: string, fingerprint: string): string {
    return join(this.dir, `${safe(model)}-${fingerprint}`)
  }
}

/** Model ids hold names and `@`: kept to a plain file-name alphabet. */
function safe(model: string): string {
  let out = ''
  for (const ch of model) out += /[A-Za-z0-9._]/.test(ch) ? ch : '_'
  return out
}
