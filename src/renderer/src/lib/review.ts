import { fileReviewLevel, type ReviewLevel } from '../../../shared/review'

/**
 * Which files the batch list shows (docs/review.md): all; those to check (either level); those at
 * one level ("Likely wrong", "Worth a look"); those touched up and saved, which have left
 * "to check"; or those a store check found not ready (docs/store-ready.md).
 */
export type ListFilter = 'all' | 'to-check' | 'likely-wrong' | 'worth-a-look' | 'touched-up' | 'not-ready'
/** The list's order: as the files were added, or the most uncertain cutouts first. */
export type ListSort = 'added' | 'uncertainty'

/** What the filters look at in a file. */
export interface ReviewedFile {
  uncertainty: number | null
  touch_ups: number
  /** Store checks (docs/store-ready.md): a file "Not ready" for a store is under `not-ready`. */
  checks?: ReadonlyArray<{ passed: boolean }> | null
}

const LEVEL_OF_FILTER: Partial<Record<ListFilter, ReviewLevel>> = { 'likely-wrong': 'likely_wrong', 'worth-a-look': 'worth_a_look' }

/** Whether the list shows `file` under `filter`. */
export function shownBy(file: ReviewedFile, filter: ListFilter): boolean {
  if (filter === 'all') return true
  if (filter === 'touched-up') return file.touch_ups > 0
  if (filter === 'not-ready') return file.checks?.some((c) => !c.passed) ?? false
  const level = fileReviewLevel(file.uncertainty, file.touch_ups)
  return filter === 'to-check' ? level !== null : level === LEVEL_OF_FILTER[filter]
}

/** How many files each filter shows (the filter buttons' counts). */
export function filterCounts(items: ReadonlyArray<ReviewedFile>): Record<Exclude<ListFilter, 'all'>, number> {
  const c = { 'to-check': 0, 'likely-wrong': 0, 'worth-a-look': 0, 'touched-up': 0, 'not-ready': 0 }
  for (const item of items) for (const f of Object.keys(c) as Array<keyof typeof c>) if (shownBy(item, f)) c[f]++
  return c
}

/**
 * The positions in `items` (batch order) that the list shows, in the order it shows them.
 * Sorted by uncertainty, files without a score (not done yet, failed) come after the scored
 * ones, in batch order; ties keep batch order too, so rows do not jump between updates.
 */
export function listOrder(items: ReadonlyArray<ReviewedFile>, filter: ListFilter, sort: ListSort): number[] {
  const shown: number[] = []
  for (let i = 0; i < items.length; i++) if (shownBy(items[i]!, filter)) shown.push(i)
  if (sort === 'uncertainty') {
    const score = (i: number): number => items[i]!.uncertainty ?? -1
    shown.sort((a, b) => score(b) - score(a) || a - b)
  }
  return shown
}
