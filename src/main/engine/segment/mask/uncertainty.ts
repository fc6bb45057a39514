/**
 * How much a cutout needs a person's look: 0 (sure) to 1 (check this), from what the alpha step
 * already has — the model's own soft mask and the final alpha. What it measures, how its
 * weights were fitted and how well it tells bad cutouts from good ones: docs/review.md.
 *
 * Both planes are sampled onto one GRID × GRID square (the model sees every photo stretched to a
 * square too), so the cost is the same for every photo size.
 */
import { TO_CHECK } from '../../../../shared/review'
import { components } from './regions'
import type { MaskPlane } from './types'

// The line is shared with the reports and the screens (src/shared/review.ts).
export { TO_CHECK }

/** Side of the square the features are computed on: half the model's 1024. */
export const GRID = 512

/** Model probabilities above this (10 %, in bytes) belong to what the model calls the subject. */
const SUBJECT = 26

/**
 * The logistic model's bias and weights: `refitted_on_fit` of `npm run bench:review`, fitted on its
 * fitting part alone (docs/review.md, "Formula").
 */
export const MODEL = { bias: -4.08, entropy: 7.51, pieceRoughness: 1.14 }

export interface UncertaintyFeatures {
  /** Share of the frame the cutout keeps (final alpha ≥ 50 %). */
  foreground: number
  /** Mean binary entropy (bits, 0–1) of the model's probability over its subject (> 10 %). */
  entropy: number
  /**
   * The kept region's outline over a disc's of the same area, both counted as edges between grid
   * cells (a disc of radius r has about 8r of them): 1 for a disc, more for a ragged, holed or
   * broken region. 0 when nothing is kept.
   */
  roughness: number
  /**
   * The same outline over the discs of the kept region's large pieces (each at least PIECE of the
   * kept area), one disc per piece: 1 for two clean subjects side by side, where `roughness` reads
   * the second piece as raggedness; islands, holes and a ragged outline add to it as to
   * `roughness`. 0 when nothing is kept.
   */
  pieceRoughness: number
}

/** A piece of the kept region this large (share of the kept area) is a subject of its own. */
const PIECE = 0.1

/** Features of a cutout: `model` is the model's mask (any size), `alpha` the final alpha (any size). */
export function uncertaintyFeatures(model: MaskPlane, alpha: MaskPlane): UncertaintyFeatures {
  const p = toGrid(model)
  const a = toGrid(alpha)
  let subject = 0
  let entropy = 0
  for (let i = 0; i < p.length; i++) {
    const v = p[i]!
    if (v <= SUBJECT) continue
    subject++
    entropy += ENTROPY[v]!
  }
  let kept = 0
  let outline = 0
  const keep = new Uint8Array(GRID * GRID)
  for (let y = 0; y < GRID; y++) {
    const row = y * GRID
    for (let x = 0; x < GRID; x++) {
      const i = row + x
      const k = a[i]! >= 128
      if (k) {
        kept++
        keep[i] = 1
      }
      // Edges between kept and dropped cells inside the frame (the frame's own edge is not outline).
      if (x + 1 < GRID && k !== a[i + 1]! >= 128) outline++
      if (y + 1 < GRID && k !== a[i + GRID]! >= 128) outline++
    }
  }
  let discs = 0
  if (kept > 0) for (const c of components(keep, GRID, GRID, 1, true)) if (c.area >= PIECE * kept) discs += 8 * Math.sqrt(c.area / Math.PI)
  return {
    foreground: kept / (GRID * GRID),
    entropy: entropy / Math.max(1, subject),
    roughness: kept === 0 ? 0 : outline / (8 * Math.sqrt(kept / Math.PI)),
    pieceRoughness: kept === 0 ? 0 : outline / discs
  }
}

/**
 * The score of given features: σ(bias + w₁·√entropy + w₂·log₂ max(1, pieceRoughness)). A cutout that
 * keeps nothing scores TO_CHECK, the lowest level ("Worth a look"): its mask cannot say whether
 * the photo has no subject (then it is right) or the model missed it, so a person looks, after
 * the cutouts that look wrong.
 */
export function uncertaintyScore(f: UncertaintyFeatures): number {
  if (f.foreground === 0) return TO_CHECK
  const z = MODEL.bias + MODEL.entropy * Math.sqrt(f.entropy) + MODEL.pieceRoughness * Math.log2(Math.max(1, f.pieceRoughness))
  return 1 / (1 + Math.exp(-z))
}

/** The score of a cutout: `model` is the model's soft mask, `alpha` the final alpha. */
export function uncertainty(model: MaskPlane, alpha: MaskPlane): number {
  return uncertaintyScore(uncertaintyFeatures(model, alpha))
}

/** The plane sampled at the centres of a GRID × GRID square's cells (nearest pixel). */
export function toGrid(plane: MaskPlane): Uint8Array {
  const { data, width, height } = plane
  if (data.length < width * height || width < 1 || height < 1) throw new RangeError('uncertainty: a plane does not match its size')
  const out = new Uint8Array(GRID * GRID)
  const cols = Int32Array.from({ length: GRID }, (_, x) => Math.min(width - 1, Math.floor(((x + 0.5) * width) / GRID)))
  for (let y = 0; y < GRID; y++) {
    const row = Math.min(height - 1, Math.floor(((y + 0.5) * height) / GRID)) * width
    for (let x = 0; x < GRID; x++) out[y * GRID + x] = data[row + cols[x]!]!
  }
  return out
}

/** Binary entropy in bits of each byte probability. */
const ENTROPY = Float64Array.from({ length: 256 }, (_, v) => {
  const q = v / 255
  return q <= 0 || q >= 1 ? 0 : -(q * Math.log2(q) + (1 - q) * Math.log2(1 - q))
})
