/**
 * The second look (docs/pipeline.md "Second look"): when the model's first mask of a photo is
 * doubtful — its review score says check it, its subject is small, or it found none — the model
 * looks again at other views of the photo (`views.ts`), the masks are merged (`merge`), and the
 * merged mask is kept only where the model is surer of it than of the first (`kept`).
 *
 * - `auto` (default): only where the first mask is doubtful (`doubt`); a photo whose first mask
 *   is sure costs nothing more. `off`: never. `always`: every photo (`refine=detail`'s old
 *   meaning, now its alias).
 * - The views (`plan`, at most MAX_SECOND_LOOK_VIEWS runs): none found, 2×2 overlapping tiles of
 *   the frame, each at the model's full size (4 runs); a small subject, its box zoomed, as it is
 *   and mirrored (2 runs: the model gets its whole grid for the subject); a larger one the model
 *   doubts, the 2×2 tiles too (4 runs), and of their merge the regions the model is surest of
 *   (`surest.ts`) replace the first mask where they are a subject it drowned (`found`); a larger
 *   one asked for (`always`), the photo mirrored and its box zoomed (1–2 runs).
 */
import type { MaskPlane, MaskSource } from '../mask/types'
import { cropAround, CONTEXT_MARGIN, edgeWeight, type Crop } from '../mask/detail'
import type { SegmentInput } from '../mask/mask'
import { resizeGrey } from '../mask/resample'
import { uncertainty } from '../mask/uncertainty'
import { LIKELY_WRONG } from '../../../../shared/review'
import { runView, tiles, type View, type ViewSpec } from './views'
import { surest } from './surest'
import type { SecondLook, SecondLookReason, SecondLookSetting } from '../../../../shared/params-types'

export type { SecondLook, SecondLookReason }

/** A photo's long side under which it gets no second look (`lookReason`). */
export const MIN_LOOK_SIDE = 256

/** The most views a second look takes (2×2 tiles). */
export const MAX_SECOND_LOOK_VIEWS = 4

/** Mask values at or above this are the subject. */
const SUBJECT = 128
/**
 * A subject whose box covers at most this share of the frame is small: the model sees it on a few
 * hundred of its grid's pixels, and a zoom gives it the whole grid.
 */
export const SMALL_BOX = 0.15
/**
 * The first mask's review score (on itself) from which it is doubtful: the review's "Likely wrong"
 * level. Lower, at "Worth a look", a photo the model gets right (corpus girl-1: 0.64) would pay for
 * a second look.
 */
export const DOUBTFUL = LIKELY_WRONG

/** Why the first mask (the model's, any size) is doubtful, or null when it is sure. */
export function doubt(first: MaskPlane): SecondLookReason | null {
  const box = subjectBox(first)
  if (!box) return 'empty'
  if (isSmall(box, first)) return 'small'
  return uncertainty(first, first) >= DOUBTFUL ? 'uncertain' : null
}

/** The views a second look takes of a width × height photo whose first mask is `first`. */
export function plan(first: MaskPlane, width: number, height: number, reason: SecondLookReason): ViewSpec[] {
  const box = subjectBox(first)
  // Nothing found: the frame in four overlapping tiles, each at the model's full size.
  if (!box || reason === 'empty') return tiles(width, height).map((crop) => ({ crop, mirror: false }))
  const sx = width / first.width
  const sy = height / first.height
  const x = Math.floor(box.left * sx)
  const y = Math.floor(box.top * sy)
  const w = Math.min(width, Math.ceil((box.left + box.width) * sx)) - x
  const h = Math.min(height, Math.ceil((box.top + box.height) * sy)) - y
  const crop = cropAround(x, y, w, h, width, height, CONTEXT_MARGIN)
  // A small subject: its box zoomed, as it is and mirrored.
  if (isSmall(box, first))
    return [
      { crop, mirror: false },
      { crop, mirror: true }
    ]
  // A larger one the model doubts: the frame in four tiles, each at the model's full size, so a
  // subject it drowned among the background's own objects is seen larger (`found` then keeps
  // the regions it is surest of, when they are that subject).
  if (reason === 'uncertain') return tiles(width, height).map((c) => ({ crop: c, mirror: false }))
  // A larger one asked for (`look=always`): the photo mirrored, and its box zoomed where that shows it larger.
  const whole = { left: 0, top: 0, width, height }
  const zoomed = crop.width * crop.height <= ZOOM_AT_MOST * width * height
  return [{ crop: whole, mirror: true }, ...(zoomed ? [{ crop, mirror: false }] : [])]
}

/** A subject's zoomed box is a view of its own only when it covers at most this share of the photo (else it is the photo again). */
const ZOOM_AT_MOST = 0.6

function isSmall(box: Crop, plane: MaskPlane): boolean {
  return (box.width * box.height) / (plane.width * plane.height) <= SMALL_BOX
}

/**
 * The second look at `image` given its first mask, or null when `setting` asks for none here.
 * The merged mask is at the working size (`workSize`), which the refine step takes as it takes
 * the model's. It is the first mask again when the views left the model no surer (`kept`).
 */
export async function secondLook(
  image: SegmentInput,
  first: MaskPlane,
  source: MaskSource,
  setting: SecondLookSetting,
  signal?: AbortSignal
): Promise<{ mask: MaskPlane; look: SecondLook } | null> {
  const reason = lookReason(first, setting, image.width, image.height)
  if (!reason) return null
  const views: View[] = []
  for (const spec of plan(first, image.width, image.height, reason)) views.push(await runView(image, spec, source, signal))
  signal?.throwIfAborted()
  const merged = merge(first, views, image.width, image.height, reason)
  const mask = reason === 'uncertain' ? found(first, surest(merged)) : kept(first, merged, reason)
  return { mask, look: { views: views.length, reason } }
}

/**
 * Why `setting` gives this first mask of a width × height photo a second look, or null for none.
 * A photo under MIN_LOOK_SIDE on its long side gets none: the model already sees it enlarged, and
 * a crop of it would show nothing the first look did not.
 */
export function lookReason(first: MaskPlane, setting: SecondLookSetting, width: number, height: number): SecondLookReason | null {
  if (setting === 'off' || Math.max(width, height) < MIN_LOOK_SIDE) return null
  return doubt(first) ?? (setting === 'always' ? 'asked' : null)
}

/**
 * The merged mask where the model is surer of it than of its first one as a whole (a lower
 * review score, each on itself), else the first: a second look never leaves a photo's mask less
 * sure. Where the first found nothing (its score is the review's lowest level by convention), the
 * merged one is kept when it is no longer doubtful.
 *
 * For a small subject the two are compared as `surest` leaves them, each cleared of the faint
 * haze and stray regions away from its subject: the zoomed views see the busy background around
 * the subject larger, and its haze, which is not the subject, raised the merged mask's score and
 * kept a worse first mask (size scenes' fit part, docs/pipeline.md "Second look"). What is kept
 * is the merged mask as it is.
 */
export function kept(first: MaskPlane, merged: MaskPlane, reason: SecondLookReason): MaskPlane {
  if (reason === 'empty') return subjectBox(merged) && uncertainty(merged, merged) < DOUBTFUL ? merged : first
  const [a, b] = reason === 'small' ? [surest(merged), surest(first)] : [merged, first]
  return uncertainty(a, a) < uncertainty(b, b) ? merged : first
}

/**
 * After a doubted large first mask: the surest regions of the tiles' merge (`surest`) where they
 * are a subject the first look drowned among the background's own objects — they keep at most
 * FOUND_AT_MOST of the first mask's weight (its strengths summed, so a background the first
 * answered at half strength counts as half), and the model is surer of them (a lower review
 * score, each on itself) — else the first. A photo whose subject fills much of the frame and
 * whose first mask is doubtful for its half-transparent parts (a shelf of plants, a figure behind
 * a sign) keeps its first mask, which the solid step reads (docs/pipeline.md "Solid subjects").
 */
export function found(first: MaskPlane, candidate: MaskPlane): MaskPlane {
  if (!subjectBox(candidate)) return first
  if (keptShare(candidate) > FOUND_AT_MOST * weightShare(first)) return first
  return uncertainty(candidate, candidate) < uncertainty(first, first) ? candidate : first
}

/** A candidate that keeps more than this share of the first mask's weight is not a subject the first one drowned. */
export const FOUND_AT_MOST = 0.5

/** The share of a plane at or above 50 %. */
function keptShare(plane: MaskPlane): number {
  let n = 0
  for (let i = 0; i < plane.width * plane.height; i++) if (plane.data[i]! >= SUBJECT) n++
  return n / (plane.width * plane.height)
}

/**
 * A plane's strengths summed, over its size. A first mask that drowned a subject in a busy
 * background's lattice holds most of its weight under 50 % (size scenes: a building's frame at a
 * third of the strength, 0.2 % of the frame kept at ≥ 50 % but 3 % of its weight).
 */
function weightShare(plane: MaskPlane): number {
  let n = 0
  for (let i = 0; i < plane.width * plane.height; i++) n += plane.data[i]!
  return n / 255 / (plane.width * plane.height)
}

/** The merged mask's size: the photo's, its long side at most this (a zoomed view holds more than the model's 1024²). */
export const WORK_SIDE = 2048

export function workSize(width: number, height: number): { width: number; height: number } {
  const s = Math.min(1, WORK_SIDE / Math.max(width, height))
  return { width: Math.max(1, Math.round(width * s)), height: Math.max(1, Math.round(height * s)) }
}

/**
 * The first mask and the views' merged. Each view's answer weighs 1 inside its crop, falling to
 * 0 towards the crop's edges that lie inside the photo (there the model saw the subject cut off,
 * and guesses).
 *
 * - Where the first found nothing (`empty`), it says nothing: each pixel takes the answer of the
 *   tile surest of it (farthest from 50 %) among those that weigh at least SURE_WEIGHT there.
 * - Otherwise each pixel is the weighted mean of the first mask (weight 1) and the views that saw
 *   it: a zoomed box's two views outweigh the first two to one inside the box, and what the
 *   model says only in one of the views is halved. (Measured on the size scenes' fit part,
 *   docs/pipeline.md "Second look": the surest answer instead takes the background's own objects
 *   that a view sees confidently, and undoes cutouts that were right.)
 */
export function merge(first: MaskPlane, views: readonly View[], width: number, height: number, reason: SecondLookReason): MaskPlane {
  const out = workSize(width, height)
  const empty = reason === 'empty'
  const data = empty ? Buffer.alloc(out.width * out.height) : resizeGrey(first.data, first.width, first.height, out.width, out.height)
  const sure = new Float32Array(data.length) // the chosen answer's sureness (empty), or the weights' sum
  const sum = new Float32Array(data.length)
  if (!empty)
    for (let i = 0; i < data.length; i++) {
      sum[i] = data[i]!
      sure[i] = 1
    }
  const sx = out.width / width
  const sy = out.height / height
  for (const view of views) {
    const c = view.crop
    const left = Math.round(c.left * sx)
    const top = Math.round(c.top * sy)
    const w = Math.max(1, Math.min(out.width, Math.round((c.left + c.width) * sx)) - left)
    const h = Math.max(1, Math.min(out.height, Math.round((c.top + c.height) * sy)) - top)
    const m = resizeGrey(view.mask.data, view.mask.width, view.mask.height, w, h)
    const edge = edgeWeight({ left, top, width: w, height: h }, out.width, out.height, Math.max(1, Math.round(EDGE_RAMP * Math.min(w, h))))
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const i = (top + y) * out.width + left + x
        const d = m[y * w + x]!
        const k = edge(x, y)
        if (!empty) {
          sum[i]! += k * d
          sure[i]! += k
        } else if (k >= SURE_WEIGHT && (Math.abs(d - 127.5) > sure[i]! || (Math.abs(d - 127.5) === sure[i]! && d > data[i]!))) {
          data[i] = d
          sure[i] = Math.abs(d - 127.5)
        }
      }
  }
  if (!empty) for (let i = 0; i < data.length; i++) data[i] = Math.round(sum[i]! / sure[i]!)
  return { data, width: out.width, height: out.height }
}

/** A view's weight falls from 1 to 0 over this share of its crop's shorter side, towards an edge inside the photo. */
export const EDGE_RAMP = 0.1
/** A tile weighing less than this at a pixel does not take it (`merge`, `empty`). */
export const SURE_WEIGHT = 0.5

/** The box of the plane's subject pixels, or null. */
export function subjectBox(plane: MaskPlane): Crop | null {
  const { data, width, height } = plane
  let x0 = width
  let y0 = height
  let x1 = -1
  let y1 = -1
  for (let y = 0; y < height; y++) {
    const row = y * width
    for (let x = 0; x < width; x++) {
      if (data[row + x]! < SUBJECT) continue
      if (x < x0) x0 = x
      if (x > x1) x1 = x
      if (y < y0) y0 = y
      y1 = y
    }
  }
  return x1 < 0 ? null : { left: x0, top: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 }
}
