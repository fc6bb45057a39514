/**
 * The record `clipdesk process` keeps in its output folder (`.clipdesk-process.jsonl`), so that
 * a run stopped in any way (Ctrl-C, SIGKILL, power cut) continues where it stopped: photos
 * whose outputs exist with the same settings are skipped, and a photo caught half-way is
 * written again under the names it had claimed (never as `-1` beside its own half result).
 * This is the CLI's storage behind the writer's `ResumeRecord` (`../outputs/write.ts`).
 *
 * One JSON line per step, appended: `writing` (names claimed, before any byte is written)
 * then `done` (every output in place). The last line for an input wins; a torn last line
 * (killed mid-append) is ignored. Outputs take their names atomically (link or rename), so a
 * listed output is always complete.
 */
import type { SecondLook } from '../../shared/params-types'
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { relativeName } from '../outputs/paths'
import type { ResumeRecord } from '../outputs/write'

export const LEDGER_NAME = '.clipdesk-process.jsonl'

export interface LedgerEntry {
  /** Absolute path of the input. */
  input: string
  /** `settingsKey` of the run that wrote it. */
  settings: string
  /** Input size and modification time: a replaced input is processed again. */
  size: number
  mtimeMs: number
  /** Outputs, relative to the output folder, '/'-separated. */
  outputs: string[]
  state: 'writing' | 'done'
  /**
   * On `done`: the cutout's uncertainty score and the job's warnings, so that a run continued
   * later reports the photos of its earlier part too ("to check" included). Absent on lines
   * written before they were kept: such a photo is reported without a score.
   */
  uncertainty?: number | null
  /** On `done`: the second look the photo got, when it got one. */
  secondLook?: SecondLook | null
  warnings?: string[]
}

/** A short hash of everything that changes the outputs' content or names. */
export function settingsKey(settings: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 16)
}

export class ProcessLedger {
  private readonly file: string
  private readonly entries = new Map<string, LedgerEntry>()
  /** Output name → the input that claimed it. */
  private readonly owners = new Map<string, string>()
  /** Input → the outputs of its last `done` line: files it wrote, which it may replace. */
  private readonly written = new Map<string, string[]>()

  constructor(private readonly outDir: string) {
    this.file = join(outDir, LEDGER_NAME)
    if (!existsSync(this.file)) return
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (line.trim() === '') continue
      try {
        const e = JSON.parse(line) as LedgerEntry
        if (typeof e.input === 'string' && Array.isArray(e.outputs)) this.remember(e)
      } catch {
        // A line torn by a kill mid-append: that step did not happen.
      }
    }
  }

  /** True when the input's outputs are all in place with these settings, for this version of the input. */
  isDone(input: string, settings: string, size: number, mtimeMs: number): boolean {
    const e = this.entries.get(input)
    if (e?.state !== 'done' || e.settings !== settings || e.size !== size || e.mtimeMs !== mtimeMs) return false
    return e.outputs.every((o) => existsSync(join(this.outDir, o)))
  }

  /** The `done` line of an input done with these settings (`isDone`), for the report of a continued run. */
  doneEntry(input: string, settings: string, size: number, mtimeMs: number): LedgerEntry | null {
    return this.isDone(input, settings, size, mtimeMs) ? this.entries.get(input)! : null
  }

  record(entry: LedgerEntry): void {
    // A new line only (O_APPEND): an earlier line is never rewritten, so a kill loses at most this step.
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`)
    this.remember(entry)
  }

  /**
   * The writer's record for one input of this run: the names it claimed with these settings are
   * used again; the names of its last `done` are its own files; names claimed by other inputs are not free.
   */
  resumeRecord(version: Omit<LedgerEntry, 'outputs' | 'state'>): ResumeRecord {
    const before = this.entries.get(version.input)
    const own = this.written.get(version.input) ?? []
    const abs = (rel: string): string => join(this.outDir, ...rel.split('/'))
    const rel = (path: string): string => relativeName(this.outDir, path)
    return {
      planned: () => (before && before.settings === version.settings ? before.outputs.map(abs) : null),
      ownsWritten: (path) => own.includes(rel(path)),
      heldByOther: (path) => {
        const owner = this.owners.get(rel(path))
        return owner !== undefined && owner !== version.input
      },
      plan: (paths) => this.record({ ...version, outputs: paths.map(rel), state: 'writing' }),
      wrote: () => undefined
    }
  }

  private remember(e: LedgerEntry): void {
    for (const o of this.entries.get(e.input)?.outputs ?? []) if (this.owners.get(o) === e.input) this.owners.delete(o)
    this.entries.set(e.input, e)
    for (const o of e.outputs) this.owners.set(o, e.input)
    if (e.state === 'done') this.written.set(e.input, e.outputs)
  }
}
