/**
 * Replacing a feature's own outputs with a new version while keeping the one before beside it
 * (a touch-up: docs/touch-up.md "Touch-up"): `photo.png` is first copied to the first free
 * `photo.prev-1.png`, `photo.prev-2.png`… in the same folder (by the one placer, `place.ts`:
 * never over another file), then the new result is renamed over `photo.png` by the
 * one writer (`write.ts`), as its own earlier output. Every output is checked before anything is
 * written: a regular file or nothing, in a folder that is still the one checked (`place.ts`,
 * `no-follow.ts`); a link, FIFO or device at an output name, or a folder swapped for a link,
 * refuses the whole replacement (`ContainmentError`) with nothing written.
 */
import { basename, dirname, extname, join } from 'node:path'
import { checkedDir } from './contained-dir'
import { entryAt, kindOf, NotOurFile } from './no-follow'
import { existsOrLink } from './numbered'
import { placeFile } from './place'
import { writeOutputs } from './write'

/** The n-th name a previous version of `path` may take: `photo.png` → `photo.prev-n.png`. */
export function previousName(path: string, n: number): string {
  const ext = extname(path)
  const stem = basename(path, ext)
  return join(dirname(path), `${stem}.prev-${n}${ext}`)
}

/**
 * Whether a file name has the form `previousName` gives (`photo.prev-3.png`): a previous
 * version kept by a touch-up, which a watched folder does not take as an input. String
 * operations only: names come from the disk.
 */
export function isPreviousVersionName(name: string): boolean {
  const stem = basename(name, extname(name))
  const at = stem.lastIndexOf('.prev-')
  if (at <= 0) return false
  const n = stem.slice(at + '.prev-'.length)
  return n.length > 0 && n.length <= 4 && n[0] !== '0' && [...n].every((c) => c >= '0' && c <= '9')
}

/** The first `previousName` of `path` that nothing holds. */
function freePreviousName(path: string, chosen: ReadonlySet<string>): string {
  for (let n = 1; n < 10_000; n++) {
    const candidate = previousName(path, n)
    if (!chosen.has(candidate) && !existsOrLink(candidate)) return candidate
  }
  throw new Error(`no free name for the previous version of ${path}`)
}

/**
 * Writes `from[i]` over `outputs[i]` (absolute paths inside `root`, this input's own finished
 * outputs), keeping each one's current file as its previous version first. Returns where the
 * previous versions went, in order. An output missing on disk (deleted by the user) has no
 * previous version: '' in its place.
 */
export async function replaceKeepingPrevious(from: readonly string[], outputs: readonly string[], root: string): Promise<string[]> {
  if (from.length !== outputs.length) throw new Error(`${from.length} new files for ${outputs.length} outputs`)
  // Each output as it is now, checked before any byte is written.
  const present: boolean[] = []
  for (const current of outputs) {
    const dir = await checkedDir(root, dirname(current))
    const there = await entryAt(join(dir.path, basename(current)))
    if (there && !there.isFile()) throw new NotOurFile(current, kindOf(there))
    present.push(there !== null)
  }
  const previous: string[] = []
  const chosen = new Set<string>()
  for (const [i, current] of outputs.entries()) {
    if (!present[i]) {
      previous.push('')
      continue
    }
    const kept = freePreviousName(current, chosen)
    chosen.add(kept)
    await placeFile(current, kept, root, false)
    previous.push(kept)
  }
  const own = new Set(outputs)
  await writeOutputs(
    from.map((f, i) => ({ from: f, target: outputs[i]! })),
    root,
    {
      planned: () => outputs,
      ownsWritten: (path) => own.has(path),
      heldByOther: () => false,
      plan: () => undefined,
      wrote: () => undefined
    }
  )
  return previous
}
