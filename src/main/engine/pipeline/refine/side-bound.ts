/**
 * How far the refine step may move the model's alpha. The model decides what is subject: a
 * refined value stays on the model's side of 50 %, and the surer the model, the less it may move
 * towards the other side: at most `REACH` times the model's distance from certainty (p = 236 of
 * 255, 93 %, may go down to 160; p = 200 or less only to the 50 % line).
 *
 * Why: next to a busy edge (a dark sleeve under blond hair against a bright sky) the guided
 * filter's linear fit, dominated by the hair, pulled a sleeve the model held at 80–96 % down
 * to 50 %, and the cutout showed the new background through the sleeve.
 */
const REACH = 4

/** `q` (refined, 0–255) bounded by the model's own value `p` (0–255). */
export function boundToSide(q: number, p: number): number {
  if (p >= 128) {
    const lo = Math.max(128, p - REACH * (255 - p))
    return Math.max(q, lo)
  }
  const hi = Math.min(127, p + REACH * p)
  return Math.min(q, hi)
}
