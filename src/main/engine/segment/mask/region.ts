/**
 * Rectangles of a plane and their row copies. The refine step works on the part of a photo its
 * soft band reaches (`pipeline/refine/refine.ts`): outside it the mask is certain (0 or 1) and
 * nothing the refine computes can change it, so a subject that fills a third of the frame costs a
 * third of the work. The looks crop their views with the same copies (`detail.ts`).
 */

/** A rectangle in pixels: columns [x, x + width), rows [y, y + height). */
export interface Region {
  x: number
  y: number
  width: number
  height: number
}

/**
 * `box` (in units of `cell` pixels) widened by `margin` pixels, in pixels of a width × height
 * image, with its origin and far edges on multiples of `align` (a multiple of `cell`) or on the
 * image's own edges: grids of `align`-sized cells laid over the crop then coincide with the
 * image's own.
 */
export function widen(box: Region, cell: number, margin: number, align: number, width: number, height: number): Region {
  const down = (v: number): number => Math.max(0, Math.floor(v / align) * align)
  const up = (v: number, limit: number): number => Math.min(limit, Math.ceil(v / align) * align)
  const x = down(box.x * cell - margin)
  const y = down(box.y * cell - margin)
  const x1 = up((box.x + box.width) * cell + margin, width)
  const y1 = up((box.y + box.height) * cell + margin, height)
  return { x, y, width: x1 - x, height: y1 - y }
}

/** The region's pixels of a plane with `channels` bytes per pixel and `width` pixels per row, as a new buffer. */
export function crop(src: Uint8Array, width: number, channels: number, r: Region): Buffer {
  const out = Buffer.allocUnsafe(r.width * r.height * channels)
  const rowBytes = r.width * channels
  for (let y = 0; y < r.height; y++) {
    const from = ((r.y + y) * width + r.x) * channels
    out.set(src.subarray(from, from + rowBytes), y * rowBytes)
  }
  return out
}

/** Writes `src` (the region's pixels, `channels` bytes each) back into `dst` (`width` pixels per row). */
export function paste(dst: Uint8Array, width: number, channels: number, r: Region, src: Uint8Array): void {
  const rowBytes = r.width * channels
  for (let y = 0; y < r.height; y++) {
    dst.set(src.subarray(y * rowBytes, (y + 1) * rowBytes), ((r.y + y) * width + r.x) * channels)
  }
}

/** `r` grown by `by` pixels each way, within width × height. */
export function grown(r: Region, by: number, width: number, height: number): Region {
  const x = Math.max(0, r.x - by)
  const y = Math.max(0, r.y - by)
  return { x, y, width: Math.min(width, r.x + r.width + by) - x, height: Math.min(height, r.y + r.height + by) - y }
}

/** The cells of a grid of `cellWidth` × `cellHeight` pixels that `r` (in pixels) touches, as a box of cells. */
export function cellsUnder(r: Region, cellWidth: number, cellHeight: number): Region {
  const x = Math.floor(r.x / cellWidth)
  const y = Math.floor(r.y / cellHeight)
  return { x, y, width: Math.ceil((r.x + r.width) / cellWidth) - x, height: Math.ceil((r.y + r.height) / cellHeight) - y }
}

/** Where `a` and `b` overlap, or null. */
export function overlap(a: Region, b: Region): Region | null {
  const x = Math.max(a.x, b.x)
  const y = Math.max(a.y, b.y)
  const x1 = Math.min(a.x + a.width, b.x + b.width)
  const y1 = Math.min(a.y + a.height, b.y + b.height)
  return x1 > x && y1 > y ? { x, y, width: x1 - x, height: y1 - y } : null
}
