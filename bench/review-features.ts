/**
 * The candidate features the review benchmark measures besides the score's own
 * (`uncertainty.ts`), on the same GRID × GRID sampling, so that docs/review.md can say what each
 * one adds. None of them is in the shipped score: see "Features" there.
 */
import type { MaskPlane } from '../src/main/engine/segment/mask/types'
import { components, type Component } from '../src/main/engine/segment/mask/regions'
import { GRID, toGrid, uncertaintyFeatures, type UncertaintyFeatures } from '../src/main/engine/segment/mask/uncertainty'

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
  /**
   * Share of the outline where the photo looks the same on both sides (mean RGB difference below
   * WEAK, a few cells in from either side): where a cutout runs through one surface (a piece of
   * the background kept, a part of the subject dropped) rather than along an edge. 0 without an
   * image or an outline.
   */
  weakEdge: number
  /** Mean RGB difference (0–1) across the outline, the same cells as `weakEdge`. */
  edgeContrast: number
}

/** Cells in from the outline on each side where the two colours are read (past the soft edge). */
const STEP = 3
/** Below this mean RGB difference (0–1) the two sides look the same. */
const WEAK = 0.06

/** The image's RGB sampled at the centres of a GRID × GRID square's cells (nearest pixel), as `toGrid` samples a plane. */
function rgbGrid(image: { data: Uint8Array; width: number; height: number; channels: number }): Uint8Array {
  const { data, width, height, channels } = image
  const out = new Uint8Array(GRID * GRID * 3)
  for (let y = 0; y < GRID; y++) {
    const row = Math.min(height - 1, Math.floor(((y + 0.5) * height) / GRID)) * width
    for (let x = 0; x < GRID; x++) {
      const from = (row + Math.min(width - 1, Math.floor(((x + 0.5) * width) / GRID))) * channels
      out.set(data.subarray(from, from + 3), (y * GRID + x) * 3)
    }
  }
  return out
}

/** `weakEdge` and `edgeContrast` of the kept cells `keep` over the image's grid colours. */
function edgeFeatures(keep: Uint8Array, rgb: Uint8Array): { weakEdge: number; edgeContrast: number } {
  let edges = 0
  let weak = 0
  let sum = 0
  const at = (x: number, y: number): number => (Math.min(GRID - 1, Math.max(0, y)) * GRID + Math.min(GRID - 1, Math.max(0, x))) * 3
  const across = (xi: number, yi: number, xo: number, yo: number): void => {
    const a = at(xi, yi)
    const b = at(xo, yo)
    const d = (Math.abs(rgb[a]! - rgb[b]!) + Math.abs(rgb[a + 1]! - rgb[b + 1]!) + Math.abs(rgb[a + 2]! - rgb[b + 2]!)) / 765
    edges++
    sum += d
    if (d < WEAK) weak++
  }
  for (let y = 0; y < GRID; y++)
    for (let x = 0; x < GRID; x++) {
      const k = keep[y * GRID + x]!
      if (x + 1 < GRID && k !== keep[y * GRID + x + 1]!) {
        // Inside is the kept side: step away from the edge on each side.
        if (k) across(x - STEP + 1, y, x + STEP, y)
        else across(x + STEP, y, x - STEP + 1, y)
      }
      if (y + 1 < GRID && k !== keep[(y + 1) * GRID + x]!) {
        if (k) across(x, y - STEP + 1, x, y + STEP)
        else across(x, y + STEP, x, y - STEP + 1)
      }
    }
  return edges === 0 ? { weakEdge: 0, edgeContrast: 0 } : { weakEdge: weak / edges, edgeContrast: sum / edges }
}

export function candidateFeatures(
  model: MaskPlane,
  alpha: MaskPlane,
  image?: { data: Uint8Array; width: number; height: number; channels: number }
): CandidateFeatures {
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
    disagreement: diff / 255 / Math.max(1, union),
    ...(image ? edgeFeatures(keep, rgbGrid(image)) : { weakEdge: 0, edgeContrast: 0 })
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
  disagreement: (f: CandidateFeatures) => f.disagreement,
  weakEdge: (f: CandidateFeatures) => f.weakEdge ?? 0,
  edgeContrast: (f: CandidateFeatures) => f.edgeContrast ?? 0
} satisfies Record<string, (f: CandidateFeatures) => number>

export type CandidateTerm = keyof typeof CANDIDATE_TERMS

/** The shipped score's terms, in the order of its weights. */
export const SCORE_TERMS: CandidateTerm[] = ['entropy', 'pieceRoughness']

// The flood fill is the score's own (uncertainty.ts), so the bench and the score count pieces alike.
export { components, type Component }
