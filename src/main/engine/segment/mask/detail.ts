/**
 * The crop rule the views of a subject share: the second look's zoomed box (`second-look.ts`)
 * and the look-again boxes (`look-again.ts`). The model sees every photo squeezed to 1024²: a
 * subject on a tenth of a 4000-pixel frame gets ~100 model pixels across, and its edges are
 * guessed from that. Cropping the subject's box (plus a margin of context) and running the model
 * on the crop gives it the whole 1024² grid.
 *
 * The crop rule (`cropAround`), the crop's pixels (`extract`) and the blend's weights at a crop's
 * inner edges (`edgeWeight`).
 */
import type { SegmentInput } from './mask'
import { crop, type Region } from './region'

/** A rectangle in image pixels. */
export interface Crop {
  left: number
  top: number
  width: number
  height: number
}

/** Width of the blend at the crop's inner edges, in image pixels. */
export const RAMP = 8
/** Context around a box, as a fraction of its longer side, on each side. */
export const CONTEXT_MARGIN = 0.12

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
