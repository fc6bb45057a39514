/**
 * Which cutouts a person should look at first (docs/review.md): every cutout the model makes has
 * an uncertainty score from 0 (sure) to 1 (check this), and the ones at or above TO_CHECK are
 * "to check". Shared by the engine, the reports and every screen, so they all draw the line in
 * the same place. No Node, no DOM.
 */

/** Scores at or above this are "to check" (chosen on the benchmark: docs/review.md, "The score"). */
export const TO_CHECK = 0.2

/** Whether a cutout's score says to look at it; a file without a score (not made by the model, or done before scores) is not. */
export function isToCheck(uncertainty: number | null | undefined): boolean {
  return typeof uncertainty === 'number' && uncertainty >= TO_CHECK
}

/** The score as the status response, the records and the reports give it: 3 decimals. */
export function roundUncertainty(uncertainty: number): number {
  return Math.round(Math.min(1, Math.max(0, uncertainty)) * 1000) / 1000
}

/** "3 cutouts to check", "1 cutout to check", "0 cutouts to check": the reports' and screens' count. */
export function toCheckText(n: number): string {
  return `${n} ${n === 1 ? 'cutout' : 'cutouts'} to check`
}
