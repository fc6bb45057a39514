/**
 * A job's hint (docs/touch-up.md "Hints"): a grey plane the size of the upright image where
 * white (≥ `HINT_KEEP`) means "keep", black (≤ `HINT_REMOVE`) means "remove", a grey between
 * either and mid grey is a stroke's rim (a brush's fading edge), and mid grey
 * (`HINT_SOFT_REMOVE` < v < `HINT_SOFT_KEEP`, JPEG noise included) leaves the pixel to the
 * model. The strokes are hard constraints:
 *
 * 1. The model's mask (never the cached entry itself: a copy) takes the strokes on its own grid
 *    (`constrainMask`), and the refine step runs again on it, so the edges next to a stroke are
 *    fitted to the photo with the stroke known as subject or background.
 * 2. `mergeHinted` keeps that refined result only within `hintBand` pixels of a stroke, sets the
 *    strokes themselves to 255 and 0, takes a rim's alpha down (a remove stroke's) or up (a
 *    keep stroke's) in proportion to the stroke's strength there (`rimAlpha`), so that a remove
 *    stroke leaves no faint wisps where it was painted, and leaves every other pixel exactly as
 *    the job without a hint would have made it.
 */
import { alphaBounds } from '../compose/placement'
import type { SniffedType } from '../decode/sniff'
import { resizeGrey } from '../../segment/mask/resample'
import type { MaskPlane } from '../../segment/mask/types'
import type { Region } from '../../segment/mask/region'

/** The image types a hint may be. */
export const HINT_TYPES: readonly SniffedType[] = ['png', 'jpeg', 'webp']

/** Hint values at or above this are "keep". */
export const HINT_KEEP = 224
/** Hint values at or below this are "remove". */
export const HINT_REMOVE = 32
/**
 * A remove stroke's rim (a brush's fading edge, as the app paints it): between `HINT_REMOVE`
 * and this grey the alpha is taken down in proportion to the stroke's strength.
 */
export const HINT_SOFT_REMOVE = 96
/** A keep stroke's rim: between this grey and `HINT_KEEP` the alpha is lifted in proportion. */
export const HINT_SOFT_KEEP = 160
/** Share of a mask cell a stroke must cover to set that cell of the model's mask. */
const CELL_COVER = 128

/** A hint decoded: 1 channel, 8-bit, the image's width × height. */
export interface HintPlane {
  data: Buffer
  width: number
  height: number
}

/** An alpha and the colours to composite with it, as `computeAlpha` makes them. */
export interface AlphaPixels {
  alpha: Buffer
  /** RGBA. */
  foreground: Buffer
}

/**
 * Half-width in pixels of the band around the strokes where the edges are refined again: the
 * reach of the refine step's windows (its guided filter's and its known-colour means', about 40
 * pixels of the model's 1024² grid), at least 16 pixels.
 */
export function hintBand(width: number, height: number): number {
  return Math.max(16, Math.ceil((40 * Math.max(width, height)) / 1024))
}

/** Whether a hint value is part of a stroke (its core or its rim), not mid grey left to the model. */
function inStroke(v: number): boolean {
  return v <= HINT_SOFT_REMOVE || v >= HINT_SOFT_KEEP
}

/** Whether the hint marks any pixel (an all-grey hint changes nothing). */
export function hasStrokes(hint: HintPlane): boolean {
  for (const v of hint.data) if (inStroke(v)) return true
  return false
}

/** A hint value as it acts: mid grey (any value the model decides) as one, every stroke value as itself. */
function strokeOf(v: number): number {
  return inStroke(v) ? v : 128
}

/**
 * The alpha of a pixel on a stroke's rim, from the model's `alpha` there: a remove rim takes it
 * down in proportion to the stroke's strength (to 0 at `HINT_REMOVE`), a keep rim lifts it (to
 * 255 at `HINT_KEEP`); mid grey leaves it as it is.
 */
export function rimAlpha(v: number, alpha: number): number {
  if (v <= HINT_REMOVE) return 0
  if (v < HINT_SOFT_REMOVE) return Math.round((alpha * (v - HINT_REMOVE)) / (HINT_SOFT_REMOVE - HINT_REMOVE))
  if (v >= HINT_KEEP) return 255
  if (v > HINT_SOFT_KEEP) return Math.round(alpha + ((255 - alpha) * (v - HINT_SOFT_KEEP)) / (HINT_KEEP - HINT_SOFT_KEEP))
  return alpha
}

/**
 * The box of the pixels whose stroke differs between `before` (null: no strokes) and `hint`
 * (the same size), or null when no pixel's does: the strokes a touch-up added or took back
 * since its last preview.
 */
export function changedStrokes(before: HintPlane | null, hint: HintPlane): Region | null {
  const changed = new Uint8Array(hint.width * hint.height)
  for (let i = 0; i < changed.length; i++) if (strokeOf(hint.data[i]!) !== (before ? strokeOf(before.data[i]!) : 128)) changed[i] = 1
  return alphaBounds(changed, hint.width, hint.height, { threshold: 1 })
}

/**
 * The strokes on the mask's grid: a cell becomes 255 (0) where keep (remove) strokes cover at
 * least half of it. Returns a new mask; `mask` (perhaps the cache's) is not changed. With `cells`
 * (a box of the mask's cells) only those take the strokes, each as it would without the box: a
 * caller that reads the refine near a stroke needs no more.
 */
export function constrainMask(mask: MaskPlane, hint: HintPlane, cells?: Region): MaskPlane {
  const n = hint.width * hint.height
  const keep = Buffer.alloc(n)
  const remove = Buffer.alloc(n)
  for (let i = 0; i < n; i++) {
    const v = hint.data[i]!
    if (v >= HINT_KEEP) keep[i] = 255
    else if (v <= HINT_REMOVE) remove[i] = 255
  }
  const same = mask.width === hint.width && mask.height === hint.height
  const cover = (plane: Buffer): Buffer =>
    same ? plane : resizeGrey(plane, hint.width, hint.height, mask.width, mask.height, undefined, undefined, cells)
  const keepCells = cover(keep)
  const removeCells = cover(remove)
  const data = Buffer.from(mask.data)
  const x0 = cells ? Math.max(0, cells.x) : 0
  const y0 = cells ? Math.max(0, cells.y) : 0
  const x1 = cells ? Math.min(mask.width, cells.x + cells.width) : mask.width
  const y1 = cells ? Math.min(mask.height, cells.y + cells.height) : mask.height
  for (let y = y0; y < y1; y++) {
    for (let i = y * mask.width + x0; i < y * mask.width + x1; i++) {
      if (keepCells[i]! >= CELL_COVER && keepCells[i]! >= removeCells[i]!) data[i] = 255
      else if (removeCells[i]! >= CELL_COVER) data[i] = 0
    }
  }
  return { data, width: mask.width, height: mask.height }
}

/**
 * 1 where a pixel lies within `band` pixels (horizontally and vertically: a square around
 * each stroke pixel) of a keep or remove stroke or its rim, else 0. Two separable passes of
 * running counts.
 */
export function strokeBand(hint: HintPlane, band: number): Uint8Array {
  const { width, height } = hint
  const rows = new Uint8Array(width * height)
  const counts = new Int32Array(Math.max(width, height) + 1)
  for (let y = 0; y < height; y++) {
    const row = y * width
    for (let x = 0; x < width; x++) {
      const v = hint.data[row + x]!
      counts[x + 1] = counts[x]! + (inStroke(v) ? 1 : 0)
    }
    for (let x = 0; x < width; x++) rows[row + x] = counts[Math.min(width, x + band + 1)]! > counts[Math.max(0, x - band)]! ? 1 : 0
  }
  const out = new Uint8Array(width * height)
  for (let x = 0; x < width; x++) {
    for (let y = 0; y < height; y++) counts[y + 1] = counts[y]! + rows[y * width + x]!
    for (let y = 0; y < height; y++) out[y * width + x] = counts[Math.min(height, y + band + 1)]! > counts[Math.max(0, y - band)]! ? 1 : 0
  }
  return out
}

/**
 * The hinted result: keep strokes 255, remove strokes 0, `hinted` (the refine on the
 * constrained mask) within `band` pixels of a stroke, its alpha taken down or up on a stroke's
 * rim (`rimAlpha`), `plain` (the job without a hint) everywhere else. Keep pixels take the
 * photo's own colour (`image`, RGBA): they are subject.
 * Only colours are copied: each A channel stays `plain`'s (the input's, or opaque).
 * With `update`, only `update.area` is made so: every pixel outside it is `update.onto`'s (an
 * earlier result whose strokes differ from `hint` only well inside the area).
 */
export function mergeHinted(
  plain: AlphaPixels,
  hinted: AlphaPixels,
  hint: HintPlane,
  image: Buffer,
  band: number,
  update?: { onto: AlphaPixels; area: Region }
): AlphaPixels {
  const near = strokeBand(hint, band)
  const base = update?.onto ?? plain
  const alpha = Buffer.from(base.alpha)
  const foreground = Buffer.from(base.foreground)
  const width = hint.width
  const area = update?.area ?? { x: 0, y: 0, width, height: hint.height }
  for (let y = area.y; y < area.y + area.height; y++) {
    for (let x = area.x, i = y * width + x, o = i * 4; x < area.x + area.width; x++, i++, o += 4) {
      if (!near[i]) {
        if (update) {
          alpha[i] = plain.alpha[i]!
          plain.foreground.copy(foreground, o, o, o + 3)
        }
        continue
      }
      const v = hint.data[i]!
      if (v >= HINT_KEEP) {
        alpha[i] = 255
        image.copy(foreground, o, o, o + 3)
      } else if (v <= HINT_REMOVE) {
        alpha[i] = 0
        hinted.foreground.copy(foreground, o, o, o + 3)
      } else {
        alpha[i] = rimAlpha(v, hinted.alpha[i]!)
        hinted.foreground.copy(foreground, o, o, o + 3)
      }
    }
  }
  return { alpha, foreground }
}
