/**
 * Writes one input's results into an output folder, the same way for every feature:
 *
 * 1. Names: the names the input chose before for these same results (a crash between choosing
 *    and finishing) are used again; otherwise each rendered name (`outputNames`) is numbered
 *    (`photo-1.png`, `-2`…: `numbered.ts`) past every name that exists or that another input of
 *    the feature holds, in one synchronous step (no other input can choose in between). A name
 *    this input wrote itself before is its own and is taken again. The choice is recorded
 *    (`ResumeRecord.plan`) before any byte is written.
 * 2. Each file is placed (`place.ts`): linked to a new name, or renamed over its own earlier
 *    output. A name someone took meanwhile is avoided and the names are chosen again.
 *
 * Where the record lives is the feature's own (a batch item's column, the CLI's ledger file, a
 * watched folder's table): `ResumeRecord` is the interface.
 */
import { firstFree, existsOrLink } from './numbered'
import { NameTaken, placeFile } from './place'

/** What a feature remembers about one input's outputs, in its own storage. Paths are absolute. */
export interface ResumeRecord {
  /** The names chosen for these results before, in their order, or null to choose anew. */
  planned(): readonly string[] | null
  /** Whether this input itself wrote `path` earlier (a finished output of its own, which it may replace). */
  ownsWritten(path: string): boolean
  /** Whether another input holds `path` or has chosen it. */
  heldByOther(path: string): boolean
  /** Records the names about to be written (chosen now, or used again), before anything is written. */
  plan(paths: readonly string[]): void
  /** Records that `path` now holds this input's result. */
  wrote(path: string): void
}

export interface OutputFile {
  /** The result to copy (the engine's file). */
  from: string
  /** Where it goes by its rendered name (absolute, already checked inside the output folder). */
  target: string
}

/** Names are chosen again at most this many times when others keep taking them. */
const ATTEMPTS = 5

/**
 * Writes `files` under `root` (every folder below it made and checked by real path); returns
 * the paths written, in order.
 */
export async function writeOutputs(files: readonly OutputFile[], root: string, record: ResumeRecord): Promise<string[]> {
  const avoid = new Set<string>()
  const before = record.planned()
  let names = before && before.length === files.length ? [...before] : null
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    names ??= chooseNames(files, record, avoid)
    // Which names are this input's own finished outputs, as known before this write is recorded.
    const replace = names.map((n) => record.ownsWritten(n))
    record.plan(names)
    try {
      for (let i = 0; i < files.length; i++) {
        await placeFile(files[i]!.from, names[i]!, root, replace[i]!)
        record.wrote(names[i]!)
      }
      return names
    } catch (err) {
      if (!(err instanceof NameTaken)) throw err
      avoid.add(err.path)
      names = null
    }
  }
  throw new Error(`the output names kept being taken (${files.map((f) => f.target).join(', ')})`)
}

/** The first free numbering of each target; one synchronous step. */
function chooseNames(files: readonly OutputFile[], record: ResumeRecord, avoid: ReadonlySet<string>): string[] {
  const chosen: string[] = []
  for (const f of files) {
    const taken = (c: string): boolean =>
      chosen.includes(c) || avoid.has(c) || (!record.ownsWritten(c) && (record.heldByOther(c) || existsOrLink(c)))
    chosen.push(firstFree(f.target, taken))
  }
  return chosen
}
