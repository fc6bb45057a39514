/**
 * Which cutouts a person should look at (docs/review.md): every cutout the model makes has an
 * uncertainty score from 0 (sure) to 1 (check this), and the score puts it at a review level —
 * "Likely wrong", "Worth a look", or none. A cutout at either level is "to check" until it is
 * touched up and saved ("Touched up"). Shared by the engine, the reports, the status API and
 * every screen, so they all draw the lines in the same places. No Node, no DOM.
 */

/** The review levels, most urgent first: the API's and the reports' names. */
export type ReviewLevel = 'likely_wrong' | 'worth_a_look'

/**
 * Where each level starts (score at or above), chosen on the review benchmark's fitting part and
 * measured on its held-aside part (docs/review.md, "Levels").
 */
export const LIKELY_WRONG = 0.74
export const WORTH_A_LOOK = 0.38

/** A cutout scoring at or above this has a level: it is "to check". */
export const TO_CHECK = WORTH_A_LOOK

/** The words a designer reads for each level. */
export const REVIEW_LEVEL_LABELS: Record<ReviewLevel, string> = { likely_wrong: 'Likely wrong', worth_a_look: 'Worth a look' }

/** What a touched-up, saved file is marked instead of its level. */
export const TOUCHED_UP_LABEL = 'Touched up'

/** The level of a score; null below WORTH_A_LOOK, and for a file without a score (not made by the model, or done before scores). */
export function reviewLevel(uncertainty: number | null | undefined): ReviewLevel | null {
  if (typeof uncertainty !== 'number' || Number.isNaN(uncertainty)) return null
  if (uncertainty >= LIKELY_WRONG) return 'likely_wrong'
  if (uncertainty >= WORTH_A_LOOK) return 'worth_a_look'
  return null
}

/** Whether a cutout's score says to look at it (either level). */
export function isToCheck(uncertainty: number | null | undefined): boolean {
  return reviewLevel(uncertainty) !== null
}

/**
 * The level of a done file as its lists show it: none once it has been touched up and saved (a
 * person has looked at it and fixed it), else its score's.
 */
export function fileReviewLevel(uncertainty: number | null | undefined, touchUps: number): ReviewLevel | null {
  return touchUps > 0 ? null : reviewLevel(uncertainty)
}

/** The score as the status response, the records and the reports give it: 3 decimals. */
export function roundUncertainty(uncertainty: number): number {
  return Math.round(Math.min(1, Math.max(0, uncertainty)) * 1000) / 1000
}

/** The status API's `review` object: the level (null: none) and the score beside it, 3 decimals. */
export interface Review {
  level: ReviewLevel | null
  score: number
}

/** A score's `review` object; the level is the rounded score's, so the two never disagree. */
export function reviewOf(uncertainty: number): Review {
  const score = roundUncertainty(uncertainty)
  return { level: reviewLevel(score), score }
}

/** The score as a badge shows it: 2 decimals, rounded down so that 0.995 never reads as a certain 1.00. */
export function scoreText(uncertainty: number): string {
  // On thousandths as integers: 0.29 * 100 is 28.999… in floating point.
  return (Math.floor(Math.round(roundUncertainty(uncertainty) * 1000) / 10) / 100).toFixed(2)
}

/** "Likely wrong · 0.99": a level's words with the score beside it, as reports and activity lines say it. */
export function reviewText(level: ReviewLevel, uncertainty: number): string {
  return `${REVIEW_LEVEL_LABELS[level]} · ${scoreText(uncertainty)}`
}

/** "3 cutouts to check", "1 cutout to check", "0 cutouts to check": the reports' and screens' count. */
export function toCheckText(n: number): string {
  return `${n} ${n === 1 ? 'cutout' : 'cutouts'} to check`
}
