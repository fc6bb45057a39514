/**
 * Plane operations of the solid-subject step (`solid.ts`) on its analysis grid: a distance to the
 * nearest seed cell, a masked window maximum, a window mean and a bilinear sample of a grid plane
 * at an image pixel.
 */
import { boxMean } from './box-filter'

/** Max of `src` over a (2r+1)² window, only over cells where `mask` is set (0 where the window holds none). */
export function maxWithin(src: Uint8Array, mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const tmp = new Uint8Array(w * h)
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let m = 0
      for (let xx = Math.max(0, x - r), end = Math.min(w - 1, x + r); xx <= end; xx++) {
        const j = y * w + xx
        if (mask[j] && src[j]! > m) m = src[j]!
      }
      tmp[y * w + x] = m
    }
  const out = new Uint8Array(w * h)
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let m = 0
      for (let yy = Math.max(0, y - r), end = Math.min(h - 1, y + r); yy <= end; yy++) m = Math.max(m, tmp[yy * w + x]!)
      out[y * w + x] = m
    }
  return out
}

/** Mean of `src` over a (2r+1)² window, clamped at the borders: the refine step's one box filter (`boxMean`), on fresh planes. */
export function blur(src: Float32Array, w: number, h: number, r: number): Float32Array {
  return boxMean(src, w, h, r, new Float32Array(w * h), new Float32Array(w * h))
}

/** Bilinear sample of a grid plane at the centre of image pixel (x, y). */
export function sample(p: Float32Array, gw: number, gh: number, step: number, x: number, y: number): number {
  const fx = Math.min(gw - 1, Math.max(0, (x + 0.5) / step - 0.5))
  const fy = Math.min(gh - 1, Math.max(0, (y + 0.5) / step - 0.5))
  const x0 = fx | 0
  const y0 = fy | 0
  const x1 = Math.min(gw - 1, x0 + 1)
  const y1 = Math.min(gh - 1, y0 + 1)
  const tx = fx - x0
  const ty = fy - y0
  const top = p[y0 * gw + x0]! * (1 - tx) + p[y0 * gw + x1]! * tx
  const bottom = p[y1 * gw + x0]! * (1 - tx) + p[y1 * gw + x1]! * tx
  return top * (1 - ty) + bottom * ty
}

/** Chamfer distance (in cells, 1 and √2 steps) to the nearest cell of `seed`; the frame's border is not a seed. */
export function distanceTo(seed: Uint8Array, w: number, h: number): Float32Array {
  const d = new Float32Array(w * h)
  const far = w + h
  for (let i = 0; i < d.length; i++) d[i] = seed[i] ? 0 : far
  const D = Math.SQRT2
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x
      let v = d[i]!
      if (x > 0) v = Math.min(v, d[i - 1]! + 1)
      if (y > 0) {
        v = Math.min(v, d[i - w]! + 1)
        if (x > 0) v = Math.min(v, d[i - w - 1]! + D)
        if (x < w - 1) v = Math.min(v, d[i - w + 1]! + D)
      }
      d[i] = v
    }
  for (let y = h - 1; y >= 0; y--)
    for (let x = w - 1; x >= 0; x--) {
      const i = y * w + x
      let v = d[i]!
      if (x < w - 1) v = Math.min(v, d[i + 1]! + 1)
      if (y < h - 1) {
        v = Math.min(v, d[i + w]! + 1)
        if (x < w - 1) v = Math.min(v, d[i + w + 1]! + D)
        if (x > 0) v = Math.min(v, d[i + w - 1]! + D)
      }
      d[i] = v
    }
  return d
}
