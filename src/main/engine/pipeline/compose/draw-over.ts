/** "Source over" compositing of RGBA pixels, shared by the 8-bit compose step and the one in the input's own depth. */

/**
 * Draws `src` (RGBA, srcW×srcH) over `dst` (RGBA, dstW×dstH) at (left, top), in place
 * ("source over", straight alpha). The part outside `dst` is cut. `max` is the channels' full
 * value: 255 for 8-bit bytes, 65535 for 16-bit words (the input's own depth, `native-compose.ts`).
 */
export function drawOver(
  dst: Uint8Array | Uint16Array,
  dstW: number,
  dstH: number,
  src: Uint8Array | Uint16Array,
  srcW: number,
  srcH: number,
  left = 0,
  top = 0,
  max = 255
): void {
  const half = max >> 1
  const x0 = Math.max(0, left)
  const y0 = Math.max(0, top)
  const x1 = Math.min(dstW, left + srcW)
  const y1 = Math.min(dstH, top + srcH)
  for (let y = y0; y < y1; y++) {
    let s = ((y - top) * srcW + (x0 - left)) * 4
    let d = (y * dstW + x0) * 4
    for (let x = x0; x < x1; x++, s += 4, d += 4) {
      const sa = src[s + 3]!
      if (sa === 0) continue
      if (sa === max) {
        dst[d] = src[s]!
        dst[d + 1] = src[s + 1]!
        dst[d + 2] = src[s + 2]!
        dst[d + 3] = max
        continue
      }
      const da = dst[d + 3]!
      if (da === max) {
        // Typed-array stores truncate: + half rounds to nearest.
        const k = max - sa
        dst[d] = (src[s]! * sa + dst[d]! * k + half) / max
        dst[d + 1] = (src[s + 1]! * sa + dst[d + 1]! * k + half) / max
        dst[d + 2] = (src[s + 2]! * sa + dst[d + 2]! * k + half) / max
        continue
      }
      const under = (da * (max - sa)) / max
      const oa = sa + under
      if (oa <= 0) continue
      dst[d] = Math.round((src[s]! * sa + dst[d]! * under) / oa)
      dst[d + 1] = Math.round((src[s + 1]! * sa + dst[d + 1]! * under) / oa)
      dst[d + 2] = Math.round((src[s + 2]! * sa + dst[d + 2]! * under) / oa)
      dst[d + 3] = Math.round(oa)
    }
  }
}
