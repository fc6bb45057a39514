import { isToCheck } from '../../../shared/review'

/** Which files the batch list shows: all, or those whose cutout is to check (docs/review.md). */
export type ListFilter = 'all' | 'to-check'
/** The list's order: as the files were added, or the most uncertain cutouts first. */
export type ListSort = 'added' | 'uncertainty'

/**
 * The positions in `items` (batch order) that the list shows, in the order it shows them.
 * Sorted by uncertainty, files without a score (not done yet, failed) come after the scored
 * ones, in batch order; ties keep batch order too, so rows do not jump between updates.
 */
export function listOrder(items: ReadonlyArray<{ uncertainty: number | null }>, filter: ListFilter, sort: ListSort): number[] {
  const shown: number[] = []
  for (let i = 0; i < items.length; i++) if (filter === 'all' || isToCheck(items[i]!.uncertainty)) shown.push(i)
  if (sort === 'uncertainty') {
    const score = (i: number): number => items[i]!.uncertainty ?? -1
    shown.sort((a, b) => score(b) - score(a) || a - b)
  }
  return shown
}
