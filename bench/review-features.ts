/**
 * The candidate features the review benchmark measures besides the score's own
 * (`uncertainty.ts`), on the same GRID × GRID sampling, so that docs/review.md can say what each
 * one adds. None of them is in the shipped score: see "Features" there.
 */
import type { MaskPlane } from '../src/main/engine/pipeline/refine'
import { GRID, toGrid, uncertaintyFeatures, type UncertaintyFeatures } from '../src/main/engine/pipeline/uncertainty'

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
export const SCORE_TERMS: CandidateTerm[] = ['entropy', 'roughness']

export interface Component {
  area: number
  /** Whether the region reaches the plane's edge. */
  border: boolean
}

/**
 * The connected regions of the cells equal to `value` in a width × height plane of 0/1 bytes
 * (flood fill with an explicit stack). `eight`: diagonal neighbours join a region (8 for the
 * subject, 4 for the background, so that a diagonal line of subject both joins and closes).
 */
export function components(plane: Uint8Array, width: number, height: number, value: 0 | 1, eight: boolean): Component[] {
  const n = width * height
  const seen = new Uint8Array(n)
  const stack = new Int32Array(n)
  const out: Component[] = []
  for (let start = 0; start < n; start++) {
    if (seen[start] || plane[start] !== value) continue
    let top = 0
    stack[top++] = start
    seen[start] = 1
    let area = 0
    let border = false
    while (top > 0) {
      const i = stack[--top]!
      area++
      const x = i % width
      const y = (i - x) / width
      if (x === 0 || y === 0 || x === width - 1 || y === height - 1) border = true
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy
        if (yy < 0 || yy >= height) continue
        for (let dx = -1; dx <= 1; dx++) {
          if ((dx === 0 && dy === 0) || (!eight && dx !== 0 && dy !== 0)) continue
          const xx = x + dx
          if (xx < 0 || xx >= width) continue
          const j = yy * width + xx
          if (seen[j] || plane[j] !== value) continue
          seen[j] = 1
          stack[top++] = j
        }
      }
    }
    out.push({ area, border })
  }
  return out
}
