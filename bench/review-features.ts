/**
 * The candidate features the review benchmark measures besides the score's own
 * (`uncertainty.ts`), on the same GRID × GRID sampling, so that docs/review.md can say what each
 * one adds. None of them is in the shipped score: see "Features" there.
 */
import type { MaskPlane } from '../src/main/engine/pipeline/refine/refine'
import {
  components,
  GRID,
  toGrid,
  uncertaintyFeatures,
  type Component,
  type UncertaintyFeatures
} from '../src/main/engine/pipeline/mask/uncertainty'

/** Model probabilities between these (10 % and 90 %, in bytes) are undecided. */
const LOW = 26
const HIGH = 229

export interface CandidateFeatures extends UncertaintyFeatures {
  /** Share of the model's subject (probability > 10 %) that is undecided (10–90 %). */
  undecided: number
  /** 2 × (1 − mean probability over what the cutout keeps): 0 all at 100 %, 1 all at 50 %. */
  mush: number
  /** Share of the kept area outside its largest connected region (8-connected). */
  fragments: number
  /** Kept regions besides the largest. */
  islands: number
  /** Enclosed background (4-connected regions not reaching the frame) over the kept region's box. */
  holes: number
  /** Share of the frame's edge cells that are kept (a subject cut by the frame). */
  frame: number
  /** Mean |final − model| (0–1) over the cells either keeps. */
  disagreement: number
}

export function candidateFeatures(model: MaskPlane, alpha: MaskPlane): CandidateFeatures {
  const own = uncertaintyFeatures(model, alpha)
  const p = toGrid(model)
  const a = toGrid(alpha)
  const n = GRID * GRID
  const keep = new Uint8Array(n)
  let subject = 0
  let undecided = 0
  let kept = 0
  let keptProb = 0
  let union = 0
  let diff = 0
  let frame = 0
  let x0 = GRID
  let y0 = GRID
  let x1 = -1
  let y1 = -1
  for (let i = 0; i < n; i++) {
    const pv = p[i]!
    const av = a[i]!
    if (pv > LOW) {
      subject++
      if (pv < HIGH) undecided++
    }
    if (av >= 128 || pv >= 128) {
      union++
      diff += Math.abs(av - pv)
    }
    if (av < 128) continue
    keep[i] = 1
    kept++
    keptProb += pv
    const x = i % GRID
    const y = (i - x) / GRID
    if (x === 0 || y === 0 || x === GRID - 1 || y === GRID - 1) frame++
    x0 = Math.min(x0, x)
    x1 = Math.max(x1, x)
    y0 = Math.min(y0, y)
    y1 = Math.max(y1, y)
  }
  const regions = components(keep, GRID, GRID, 1, true)
  const largest = regions.reduce((m, c) => Math.max(m, c.area), 0)
  const enclosed = components(keep, GRID, GRID, 0, false).reduce((s, c) => s + (c.border ? 0 : c.area), 0)
  return {
    ...own,
    undecided: undecided / Math.max(1, subject),
    mush: kept === 0 ? 1 : 2 * (1 - keptProb / kept / 255),
    fragments: kept === 0 ? 0 : 1 - largest / kept,
    islands: Math.max(0, regions.length - 1),
    holes: kept === 0 ? 0 : enclosed / ((x1 - x0 + 1) * (y1 - y0 + 1)),
    frame: frame / (4 * GRID - 4),
    disagreement: diff / 255 / Math.max(1, union)
  }
}

/**
 * Each candidate as a term of a logistic model: on the scale the score uses for its own two
 * (square root of the entropy, log₂ of the roughness), logarithms for counts, the rest as they are.
 */
export const CANDIDATE_TERMS = {
  entropy: (f: CandidateFeatures) => Math.sqrt(f.entropy),
  roughness: (f: CandidateFeatures) => Math.log2(Math.max(1, f.roughness)),
  pieceRoughness: (f: CandidateFeatures) => Math.log2(Math.max(1, f.pieceRoughness)),
  foreground: (f: CandidateFeatures) => f.foreground,
  smallness: (f: CandidateFeatures) => -Math.log10(Math.max(f.foreground, 1 / (GRID * GRID))),
  undecided: (f: CandidateFeatures) => f.undecided,
  mush: (f: CandidateFeatures) => f.mush,
  fragments: (f: CandidateFeatures) => f.fragments,
  islands: (f: CandidateFeatures) => Math.log2(1 + f.islands),
  holes: (f: CandidateFeatures) => f.holes,
  frame: (f: CandidateFeatures) => f.frame,
  disagreement: (f: CandidateFeatures) => f.disagreement
} satisfies Record<string, (f: CandidateFeatures) => number>

export type CandidateTerm = keyof typeof CANDIDATE_TERMS

/** The shipped score's terms, in the order of its weights. */
export const SCORE_TERMS: CandidateTerm[] = ['entropy', 'pieceRoughness']

// The flood fill is the score's own (uncertainty.ts), so the bench and the score count pieces alike.
export { components, type Component }
