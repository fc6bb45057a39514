/**
 * Mean over a (2r+1)² window, clamped at the borders (each output is the mean of the pixels of
 * its window that lie inside the image, as He et al.'s guided filter divides by N = box(1)).
 *
 * Separable running sums: O(1) per pixel whatever the radius, and both passes walk memory in
 * row order (the vertical pass keeps one running sum per column). Sums are kept in float64 so
 * that long runs of float32 data do not drift.
 */
import { onScratchRelease } from '../../scratch'

/** Reusable column sums for the vertical pass, grown as needed (the engine is single-threaded here). */
let columnSums = new Float64Array(0)
onScratchRelease(() => {
  columnSums = new Float64Array(0)
})

/**
 * `out[i]` = mean of `src` over the window of radius `r` around pixel i. `tmp` (same length)
 * holds the horizontal pass and must not be `out`; `out` may be `src` itself (the horizontal pass
 * reads all of `src` first). All arrays are at least `width × height` long.
 */
export function boxMean(src: Float32Array, width: number, height: number, r: number, tmp: Float32Array, out: Float32Array): Float32Array {
  const n = width * height
  if (src.length < n || tmp.length < n || out.length < n) throw new RangeError('boxMean: array shorter than width × height')
  if (!Number.isInteger(r) || r < 0) throw new RangeError(`boxMean: radius must be a non-negative integer, got ${r}`)
  horizontal(src, width, height, r, tmp)
  vertical(tmp, width, height, r, out)
  return out
}

function horizontal(src: Float32Array, width: number, height: number, r: number, out: Float32Array): void {
  if (2 * r + 1 >= width) {
    horizontalSmall(src, width, height, r, out)
    return
  }
  // Three stretches per row so the hot middle one has no branches: the window grows (left
  // border), slides at full size (middle), shrinks (right border).
  const inv = 1 / (2 * r + 1)
  for (let row = 0, end = width * height; row < end; row += width) {
    let sum = 0
    for (let x = 0; x < r; x++) sum += src[row + x]!
    for (let x = 0; x <= r; x++) {
      sum += src[row + x + r]!
      out[row + x] = sum / (x + r + 1)
    }
    for (let x = r + 1; x < width - r; x++) {
      sum += src[row + x + r]! - src[row + x - r - 1]!
      out[row + x] = sum * inv
    }
    for (let x = width - r; x < width; x++) {
      sum -= src[row + x - r - 1]!
      out[row + x] = sum / (width - x + r)
    }
  }
}

/** Rows no wider than the window: plain clamped sums. */
function horizontalSmall(src: Float32Array, width: number, height: number, r: number, out: Float32Array): void {
  for (let row = 0, end = width * height; row < end; row += width) {
    for (let x = 0; x < width; x++) {
      const lo = Math.max(0, x - r)
      const hi = Math.min(width - 1, x + r)
      let sum = 0
      for (let k = lo; k <= hi; k++) sum += src[row + k]!
      out[row + x] = sum / (hi - lo + 1)
    }
  }
}

function vertical(src: Float32Array, width: number, height: number, r: number, out: Float32Array): void {
  if (columnSums.length < width) columnSums = new Float64Array(width)
  const sums = columnSums
  sums.fill(0, 0, width)
  // Before row 0: rows [0, r) (all of them when the window is taller than the image).
  for (let y = 0, reach = Math.min(r, height); y < reach; y++) {
    const row = y * width
    for (let x = 0; x < width; x++) sums[x]! += src[row + x]!
  }
  // Row y's window is rows [y − r, y + r] ∩ [0, height): add the entering row, write, then
  // drop the row that leaves before the next one.
  for (let y = 0; y < height; y++) {
    const enter = y + r
    const leave = y - r
    const count = Math.min(height - 1, enter) - Math.max(0, leave) + 1
    const inv = 1 / count
    const row = y * width
    if (enter < height && leave >= 0) {
      // The common case, in one pass: add, write, subtract.
      const e = enter * width
      const l = leave * width
      for (let x = 0; x < width; x++) {
        const v = sums[x]! + src[e + x]!
        out[row + x] = v * inv
        sums[x] = v - src[l + x]!
      }
    } else {
      if (enter < height) {
        const e = enter * width
        for (let x = 0; x < width; x++) sums[x]! += src[e + x]!
      }
      for (let x = 0; x < width; x++) out[row + x] = sums[x]! * inv
      if (leave >= 0) {
        const l = leave * width
        for (let x = 0; x < width; x++) sums[x]! -= src[l + x]!
      }
    }
  }
}
