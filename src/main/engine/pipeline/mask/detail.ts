/**
 * The detail pass (`refine=detail`): a second model run on the subject's box for subjects that
 * cover a small part of the frame.
 *
 * The model sees every photo squeezed to 1024²: a subject on a tenth of a 4000-pixel frame gets
 * ~100 model pixels across, and its edges are guessed from that. Cropping the subject's box
 * (plus a margin of context) and running the model on the crop gives it the whole 1024² grid.
 * The crop's mask replaces the first one inside the crop, blended over a short ramp at the
 * crop's inner edges so no seam shows; the first mask stays outside (other, far parts of the
 * subject are kept as the first run saw them).
 *
 * The crop rule (`cropAround`), the crop's pixels (`extract`) and the blend's weights
 * (`edgeWeight`) are shared with the look-again boxes (`look-again.ts`).
 */
import type { SegmentInput } from './mask'
import { crop, type Region } from '../guide/region'
import { resizeGrey } from './resample'

/** A 1-channel 8-bit plane. */
export interface Plane {
  data: Buffer
  width: number
  height: number
}

export interface DetailOptions {
  /** Run only when the subject's box covers at most this fraction of the frame. @default 0.25 */
  maxFraction?: number
  /** Context around the box, as a fraction of its longer side, on each side. @default 0.12 */
  margin?: number
}

/** A rectangle in image pixels. */
export interface Crop {
  left: number
  top: number
  width: number
  height: number
}

export interface DetailResult {
  /** The merged mask at the image's full size. */
  mask: Plane
  /** The crop the model ran on, in image pixels. */
  crop: Crop
}

/** Mask values at or above this are the subject when finding its box. */
const SUBJECT = 128
/** Width of the blend at the crop's inner edges, in image pixels. */
export const RAMP = 8
/** Context around a box, as a fraction of its longer side, on each side. */
export const CONTEXT_MARGIN = 0.12

/**
 * The merged mask, or null when the subject is not small (or there is none). `mask` is the first
 * run's mask at any size (the model's 1024² or the image's); `segment` gives a mask at the
 * crop's own size.
 */
export async function detailPass(
  image: SegmentInput,
  mask: Plane,
  segment: (crop: SegmentInput, signal?: AbortSignal) => Promise<Buffer>,
  opts: DetailOptions = {},
  signal?: AbortSignal
): Promise<DetailResult | null> {
  const { width, height } = image
  const box = subjectBox(mask)
  if (!box) return null
  // The box in image pixels.
  const sx = width / mask.width
  const sy = height / mask.height
  const bx0 = Math.floor(box.x0 * sx)
  const by0 = Math.floor(box.y0 * sy)
  const bx1 = Math.min(width, Math.ceil((box.x1 + 1) * sx))
  const by1 = Math.min(height, Math.ceil((box.y1 + 1) * sy))
  const bw = bx1 - bx0
  const bh = by1 - by0
  if (bw * bh > (opts.maxFraction ?? 0.25) * width * height) return null
  const crop = cropAround(bx0, by0, bw, bh, width, height, opts.margin ?? CONTEXT_MARGIN)
  const pixels = extract(image, crop)
  signal?.throwIfAborted()
  const detail = await segment({ data: pixels, width: crop.width, height: crop.height, channels: image.channels }, signal)
  const full =
    mask.width === width && mask.height === height ? Buffer.from(mask.data) : resizeGrey(mask.data, mask.width, mask.height, width, height)
  merge(full, width, height, detail, crop)
  return { mask: { data: full, width, height }, crop }
}

/** Bounding box of the mask's subject pixels, or null. */
function subjectBox(mask: Plane): { x0: number; y0: number; x1: number; y1: number } | null {
  const { data, width, height } = mask
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
  return x1 < 0 ? null : { x0, y0, x1, y1 }
}

/**
 * The box grown by `margin` of its longer side each way and towards a square (the model's
 * input is square, and a crop of the photo's own shape would be stretched), within the image.
 */
export function cropAround(x: number, y: number, w: number, h: number, width: number, height: number, margin: number): Crop {
  const pad = Math.max(8, Math.round(margin * Math.max(w, h)))
  const side = Math.max(w, h) + 2 * pad
  const cw = Math.min(width, Math.max(w + 2 * pad, side))
  const ch = Math.min(height, Math.max(h + 2 * pad, side))
  const left = Math.max(0, Math.min(width - cw, Math.round(x + w / 2 - cw / 2)))
  const top = Math.max(0, Math.min(height - ch, Math.round(y + h / 2 - ch / 2)))
  return { left, top, width: cw, height: ch }
}

/** The crop's pixels of `image`, as a new buffer of the same channels. */
export function extract(image: SegmentInput, c: Crop): Buffer {
  return crop(image.data, image.width, image.channels, regionOf(c))
}

/** The same rectangle as `region.ts` names it. */
export function regionOf(c: Crop): Region {
  return { x: c.left, y: c.top, width: c.width, height: c.height }
}

/**
 * The blend's weight at (x, y) inside `c` (coordinates relative to it): 1 inside, falling to 0
 * over `ramp` pixels towards an edge of `c` that lies inside the width × height image (an edge
 * on the image's border needs no blend).
 */
export function edgeWeight(c: Crop, width: number, height: number, ramp = RAMP): (x: number, y: number) => number {
  const w = (d: number, atBorder: boolean): number => (atBorder ? 1 : Math.min(1, (d + 0.5) / ramp))
  return (x, y) =>
    Math.min(
      w(y, c.top === 0),
      w(c.height - 1 - y, c.top + c.height === height),
      w(x, c.left === 0),
      w(c.width - 1 - x, c.left + c.width === width)
    )
}

/** The crop's mask into the full one, blended at the crop's inner edges (`edgeWeight`). */
function merge(full: Buffer, width: number, height: number, detail: Buffer, c: Crop): void {
  const weight = edgeWeight(c, width, height)
  for (let y = 0; y < c.height; y++) {
    for (let x = 0; x < c.width; x++) {
      const w = weight(x, y)
      const i = (c.top + y) * width + c.left + x
      const f = full[i]!
      const d = detail[y * c.width + x]!
      const v = Math.abs(d - 127.5) >= Math.abs(f - 127.5) ? d : f
      full[i] = w === 1 ? v : Math.round(w * v + (1 - w) * f)
    }
  }
}
