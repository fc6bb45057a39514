/**
 * Look-again boxes (docs/touch-up.md "Look again"): the user marks a region the model got wrong,
 * and the model runs again on that crop, as the detail pass does for a small subject
 * (`detail.ts`: the same context margin and crop rule). The crop is refined as a photo of its
 * own, and its result replaces the job's inside the box where the crop's answer is sure
 * (`lookTrust`), blended over a short ramp at the box's inner edges; outside the boxes the
 * result is exactly the job's without them.
 *
 * The crops always come from the full-size image, so the touch-up editor's preview (which
 * works on a scaled-down copy) runs the model on the same pixels the saved job does and only
 * scales the crop's mask onto its own pixels.
 */
import { cropAround, CONTEXT_MARGIN, edgeWeight, extract, RAMP, regionOf, type Crop } from '../../segment/mask/detail'
import type { AlphaPixels, HintPlane } from './hint'
import { MODEL_SIZE, type SegmentInput } from '../../segment/mask/mask'
import type { DecodedImage } from '../decode/decode'
import type { MaskPlane, MaskSource } from '../../segment/mask/types'
import { crop as cropPlane } from '../../segment/mask/region'

/** A box in the input's upright pixels: columns [x, x + width), rows [y, y + height). */
export interface LookBox {
  x: number
  y: number
  width: number
  height: number
}

/** The model's answer for one box: the crop it saw (full-size pixels) and its mask of the crop. */
export interface LookRun {
  box: LookBox
  crop: Crop
  /** The crop's mask, at the model's size (or the crop's, for a segmenter without one). */
  mask: MaskPlane
}

/**
 * The crop's alpha is taken whole where it is at least this sure (a share of the way from 0.5
 * to 0 or 1: below 64 or above 191); where it is less sure, the job's alpha keeps the part of
 * the pixel its own sureness gives it. The model shown a part of a subject (legs, a sleeve) on
 * a busy background answers grey rather than wrong; a missed subject or a stray background
 * part comes back sure, and is taken.
 */
export const SURE = 0.5

/** The share (0–1) of the crop's alpha `d` over the job's `f` at one pixel inside a box (`SURE`). */
export function lookTrust(d: number, f: number): number {
  const cd = Math.abs(d - 127.5) / 127.5
  if (cd >= SURE) return 1
  const k = cd / SURE
  return k + (1 - k) * (1 - Math.abs(f - 127.5) / 127.5)
}

/** The crop the model sees for `box` in a width × height image. */
export function lookCrop(box: LookBox, width: number, height: number): Crop {
  return cropAround(box.x, box.y, box.width, box.height, width, height, CONTEXT_MARGIN)
}

/** Whether `box` covers the whole frame: the model would see the photo again, as the first run did. */
export function wholeFrame(box: LookBox, width: number, height: number): boolean {
  return box.x <= 0 && box.y <= 0 && box.x + box.width >= width && box.y + box.height >= height
}

/** One model run on `box`'s crop of the full-size `image`. */
export async function lookAgain(image: SegmentInput, box: LookBox, source: MaskSource, signal?: AbortSignal): Promise<LookRun> {
  const crop = lookCrop(box, image.width, image.height)
  const pixels: SegmentInput = { data: extract(image, crop), width: crop.width, height: crop.height, channels: image.channels }
  signal?.throwIfAborted()
  if (source.segmentAtModelSize) {
    const r = await source.segmentAtModelSize(pixels, signal)
    return { box, crop, mask: { data: r.mask, width: r.width ?? MODEL_SIZE, height: r.height ?? MODEL_SIZE } }
  }
  return { box, crop, mask: { data: await source.segment(pixels, signal), width: crop.width, height: crop.height } }
}

/**
 * Makes a crop's result from its pixels, its mask and the hint's strokes within it (null when
 * none): the refine step, and the strokes on top, as a whole job makes them.
 */
export type FinishCrop = (image: DecodedImage, mask: MaskPlane, strokes: HintPlane | null) => Promise<AlphaPixels>

/**
 * `base` (the job's result on `image`) with each run's crop result inside its box. `image` may
 * be the full-size image's scaled copy (`fullWidth` × `fullHeight` is the full size): boxes and
 * crops are scaled onto it. `strokes` (at `image`'s size) win over the crop: they are applied
 * to each crop's result as to the whole image's.
 */
export async function mergeLooks(
  image: DecodedImage,
  base: AlphaPixels,
  runs: readonly LookRun[],
  full: { width: number; height: number },
  finish: FinishCrop,
  strokes: HintPlane | null,
  signal?: AbortSignal
): Promise<AlphaPixels> {
  const { width, height } = image
  const sx = width / full.width
  const sy = height / full.height
  const alpha = Buffer.from(base.alpha)
  const foreground = Buffer.from(base.foreground)
  for (const run of runs) {
    signal?.throwIfAborted()
    const { crop, box, image: cropImage, strokes: cropStrokes } = cropInput(image, run, full, strokes)
    const made = await finish(cropImage, run.mask, cropStrokes)
    const weight = edgeWeight(box, width, height, Math.max(1, Math.round(RAMP * Math.min(sx, sy))))
    const agree = contextTrust(alpha, width, made.alpha, crop, box)
    for (let y = 0; y < box.height; y++) {
      for (let x = 0; x < box.width; x++) {
        const i = (box.top + y) * width + box.left + x
        const j = (box.top - crop.top + y) * crop.width + box.left - crop.left + x
        const w = weight(x, y) * agree * lookTrust(made.alpha[j]!, alpha[i]!)
        alpha[i] = w === 1 ? made.alpha[j]! : Math.round(w * made.alpha[j]! + (1 - w) * alpha[i]!)
        for (let c = 0; c < 3; c++) {
          const f = i * 4 + c
          const m = made.foreground[j * 4 + c]!
          foreground[f] = w === 1 ? m : Math.round(w * m + (1 - w) * foreground[f]!)
        }
      }
    }
  }
  return { alpha, foreground }
}

/** A run's crop on `image` (perhaps the full size's scaled copy): its rectangle and box there, its pixels and the strokes inside it (null: none given). */
export interface CropInput {
  crop: Crop
  box: Crop
  image: DecodedImage
  strokes: HintPlane | null
}

/** `run`'s crop on `image`, whose full size is `full`, with the part of `strokes` (at `image`'s size) inside it. */
export function cropInput(
  image: DecodedImage,
  run: LookRun,
  full: { width: number; height: number },
  strokes: HintPlane | null
): CropInput {
  const { width, height } = image
  const sx = width / full.width
  const sy = height / full.height
  const crop = scaled(run.crop, sx, sy, width, height)
  const box = scaled({ left: run.box.x, top: run.box.y, width: run.box.width, height: run.box.height }, sx, sy, width, height)
  const pixels: DecodedImage = {
    data: cropPlane(image.data, width, 4, regionOf(crop)),
    width: crop.width,
    height: crop.height,
    channels: 4,
    hasAlpha: false,
    warnings: []
  }
  const inside = strokes ? { data: cropPlane(strokes.data, width, 1, regionOf(crop)), width: crop.width, height: crop.height } : null
  return { crop, box, image: pixels, strokes: inside }
}

/**
 * How far the crop's answer is trusted at all, from how it agrees with the job's on the crop's
 * context (the crop outside the box, which the user did not mark): 1 when they differ by at
 * most CONTEXT_AGREE on average there, falling to 0 at CONTEXT_DISAGREE. Shown a part of a
 * subject, the model may take the background for the subject or the subject for background;
 * the context, where the job was right, shows it. 1 when the crop has no context (the box
 * fills it).
 */
export function contextTrust(alpha: Uint8Array, width: number, cropAlpha: Uint8Array, crop: Crop, box: Crop): number {
  let sum = 0
  let n = 0
  for (let y = 0; y < crop.height; y++) {
    const fy = crop.top + y
    const inRows = fy >= box.top && fy < box.top + box.height
    for (let x = 0; x < crop.width; x++) {
      const fx = crop.left + x
      if (inRows && fx >= box.left && fx < box.left + box.width) continue
      sum += Math.abs(cropAlpha[y * crop.width + x]! - alpha[fy * width + fx]!)
      n++
    }
  }
  if (n === 0) return 1
  const d = sum / n / 255
  return Math.min(1, Math.max(0, (CONTEXT_DISAGREE - d) / (CONTEXT_DISAGREE - CONTEXT_AGREE)))
}

/** Mean difference (0–1) of the crop's alpha and the job's on the crop's context up to which the crop is trusted fully, and at which not at all (`contextTrust`). */
export const CONTEXT_AGREE = 0.05
export const CONTEXT_DISAGREE = 0.2

/** A full-size rectangle on an image scaled by sx × sy, within its width × height. */
function scaled(r: Crop, sx: number, sy: number, width: number, height: number): Crop {
  if (sx === 1 && sy === 1) return r
  const left = Math.min(width - 1, Math.round(r.left * sx))
  const top = Math.min(height - 1, Math.round(r.top * sy))
  const right = Math.max(left + 1, Math.min(width, Math.round((r.left + r.width) * sx)))
  const bottom = Math.max(top + 1, Math.min(height, Math.round((r.top + r.height) * sy)))
  return { left, top, width: right - left, height: bottom - top }
}
