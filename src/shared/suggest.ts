/**
 * "Did you mean": the nearest of a few known words to one typed wrong (`--fromat` → `format`,
 * `ecomerce-white` → `ecommerce-white`), for the command line's options and for preset names
 * on every way in (the CLI's `--params`, the API's 422 for an unknown preset). No Node, no DOM.
 */
import type { ErrorDetail } from './errors'

/** Typed words longer than this are not compared (a pasted paragraph is no typo; the cost is length²). */
const MAX_LENGTH = 128

/**
 * Edits from `a` to `b`: a character added, removed, changed, or two neighbours swapped
 * (`fromat` is one swap from `format`; optimal string alignment distance).
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)]
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1)
      row.push(d)
    }
    rows.push(row)
  }
  return rows[a.length]![b.length]!
}

/**
 * The known word nearest to `typed`, when it is near enough to be a slip (about one edit in
 * four letters, at least one; case ignored); null otherwise, or when two are equally near.
 */
export function closest(typed: string, known: readonly string[]): string | null {
  const word = typed.toLowerCase()
  if (word.length === 0 || word.length > MAX_LENGTH) return null
  const limit = Math.max(1, Math.floor(word.length / 4))
  let best: string | null = null
  let bestDistance = Infinity
  let tied = false
  for (const candidate of new Set(known)) {
    if (candidate.length > MAX_LENGTH || Math.abs(candidate.length - word.length) > limit) continue
    const d = editDistance(word, candidate.toLowerCase())
    if (d < bestDistance) [best, bestDistance, tied] = [candidate, d, false]
    else if (d === bestDistance && candidate !== best) tied = true
  }
  return best !== null && bestDistance > 0 && bestDistance <= limit && !tied ? best : null
}

/** The start of the params checker's issue for an unknown preset (`resolveParams`, `shared/params-layers.ts`). */
const NO_PRESET = 'no preset named "'

/**
 * `details` with "did you mean" added to an unknown preset's issue, when one of `names` is
 * near: `no preset named "ecomerce-white"; did you mean "ecommerce-white"?`.
 */
export function suggestPresets(details: ErrorDetail[], names: readonly string[]): ErrorDetail[] {
  return details.map((d) => {
    if (d.field !== 'params.preset' || !d.issue.startsWith(NO_PRESET)) return d
    const typed = d.issue.slice(NO_PRESET.length, d.issue.indexOf('"', NO_PRESET.length))
    const near = closest(typed, names)
    return near ? { ...d, issue: `${d.issue}; did you mean "${near}"?` } : d
  })
}
