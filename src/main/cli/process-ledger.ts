/**
 * The record `clipdesk process` keeps in its output folder (`.clipdesk-process.jsonl`), so that
 * a run stopped in any way (Ctrl-C, SIGKILL, power cut) continues where it stopped: photos
 * whose outputs exist with the same settings are skipped, and a photo caught half-way is
 * written again under the names it had claimed (never as `-1` beside its own half result).
 *
 * One JSON line per step, appended: `writing` (names claimed, before any byte is written)
 * then `done` (every output renamed into place). The last line for an input wins; a torn
 * last line (killed mid-append) is ignored. Outputs are written to a temporary name and
 * renamed, so a listed output is always complete.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { join } from 'node:path'

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
}

/** A short hash of everything that changes the outputs' content or names. */
export function settingsKey(settings: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 16)
}

export class ProcessLedger {
  private readonly file: string
  private readonly entries = new Map<string, LedgerEntry>()

  constructor(private readonly outDir: string) {
    this.file = join(outDir, LEDGER_NAME)
    if (!existsSync(this.file)) return
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (line.trim() === '') continue
      try {
        const e = JSON.parse(line) as LedgerEntry
        if (typeof e.input === 'string' && Array.isArray(e.outputs)) this.entries.set(e.input, e)
      } catch {
        // A line torn by a kill mid-append: that step did not happen.
      }
    }
  }

  /** True when the input's outputs are all in place with these settings, for this version of the input. */
  isDone(input: string, settings: string, size: number, mtimeMs: number): boolean {
    const e = this.entries.get(input)
    if (!e || e.state !== 'done' || e.settings !== settings || e.size !== size || e.mtimeMs !== mtimeMs) return false
    return e.outputs.every((o) => existsSync(join(this.outDir, o)))
  }

  /** The names an input claimed before (its own files, which it may replace), or []. */
  claimed(input: string): string[] {
    return this.entries.get(input)?.outputs ?? []
  }

  /** Every name claimed by any input (other inputs must not take them). */
  allClaimed(): Set<string> {
    return new Set([...this.entries.values()].flatMap((e) => e.outputs))
  }

  record(entry: LedgerEntry): void {
    // A new line only (O_APPEND): an earlier line is never rewritten, so a kill loses at most this step.
    appendFileSync(this.file, JSON.stringify(entry) + '\n')
    this.entries.set(entry.input, entry)
  }
}
