/**
 * Resampling of 8-bit images on typed arrays: the triangle ("bilinear") filter, widened when
 * shrinking so that every source pixel contributes (what PIL's BILINEAR does), applied
 * separably and streamed one output row at a time.
 *
 * Why not sharp here: libvips enlarges through its general affine path, which costs ~60 ms of
 * CPU to stretch a 0.7 MP photo to the model's 1024² and ~230 ms to enlarge the 1024² mask to
 * 12 MP; this costs ~10 ms and ~30 ms, writes the model's float planes directly (no RGB copy),
 * and holds one row of floats rather than an intermediate image.
 */

/** For each output index: the first source index and `taps` normalised weights. */
interface Taps {
  start: Int32Array
  weights: Float32Array
  taps: number
}

/**
 * Filter taps mapping `src` samples onto `dst` (pixel centres aligned, edges clamped).
 * `scale` (source samples per output sample) defaults to src / dst, the two spanning the same
 * extent; another value maps output i to source centre (i + 0.5) · scale.
 */
export function triangleTaps(src: number, dst: number, scale = src / dst): Taps {
  const support = Math.max(1, scale) // triangle of half-width 1, widened when shrinking
  const start = new Int32Array(dst)
  const end = new Int32Array(dst)
  let taps = 1
  for (let i = 0; i < dst; i++) {
    const centre = (i + 0.5) * scale
    start[i] = Math.max(0, Math.floor(centre - support + 0.5))
    end[i] = Math.max(start[i]! + 1, Math.min(src, Math.floor(centre + support + 0.5)))
    taps = Math.max(taps, end[i]! - start[i]!)
  }
  // Every output gets exactly `taps` weights (trailing zeros where it has fewer), with its
  // window moved left at the right edge so that no weight points past the source.
  const weights = new Float32Array(dst * taps)
  for (let i = 0; i < dst; i++) {
    const centre = (i + 0.5) * scale
    const lo = Math.min(start[i]!, src - taps)
    start[i] = Math.max(0, lo)
    let sum = 0
    for (let k = 0; k < taps; k++) {
      const at = start[i]! + k
      const w = at < end[i]! ? Math.max(0, 1 - Math.abs((at + 0.5 - centre) / support)) : 0
      weights[i * taps + k] = w
      sum += w
    }
    if (sum > 0) for (let k = 0; k < taps; k++) weights[i * taps + k]! /= sum
    else weights[i * taps + Math.min(taps - 1, Math.max(0, Math.floor(centre) - start[i]!))] = 1 // degenerate: nearest
  }
  return { start, weights, taps }
}

/**
 * RGB(A) bytes (`channels` per pixel) → three float planes of `dw × dh` (R, G, B one after the
 * other in `out`), each value `sample · scale + bias`. Scales as `resizeGrey`.
 */
export function resizeToPlanes(
  src: Uint8Array,
  width: number,
  height: number,
  channels: number,
  dw: number,
  dh: number,
  out: Float32Array,
  scale: number,
  bias: number,
  scaleX = width / dw,
  scaleY = height / dh
): void {
  if (channels < 3 || src.length < width * height * channels) throw new RangeError('resizeToPlanes: source does not match its size')
  if (out.length < 3 * dw * dh) throw new RangeError('resizeToPlanes: output too short')
  const tx = triangleTaps(width, dw, scaleX)
  const ty = triangleTaps(height, dh, scaleY)
  if (height <= dh) {
    enlargeRowsToPlanes(src, width, height, channels, dw, dh, out, scale, bias, tx, ty)
    return
  }
  const row = new Float32Array(width * 3)
  const plane = dw * dh
  for (let y = 0; y < dh; y++) {
    // Vertical: this output row's source rows, weighted, into `row` (RGB interleaved).
    const y0 = ty.start[y]!
    for (let k = 0; k < ty.taps; k++) {
      const w = ty.weights[y * ty.taps + k]!
      const base = (y0 + k) * width * channels
      if (k === 0) {
        for (let x = 0, s = base, r = 0; x < width; x++, s += channels, r += 3) {
          row[r] = w * src[s]!
          row[r + 1] = w * src[s + 1]!
          row[r + 2] = w * src[s + 2]!
        }
      } else {
        for (let x = 0, s = base, r = 0; x < width; x++, s += channels, r += 3) {
          row[r]! += w * src[s]!
          row[r + 1]! += w * src[s + 1]!
          row[r + 2]! += w * src[s + 2]!
        }
      }
    }
    // Horizontal: into the planes.
    const o = y * dw
    for (let x = 0; x < dw; x++) {
      const x0 = tx.start[x]! * 3
      const wb = x * tx.taps
      let r = 0
      let g = 0
      let b = 0
      for (let k = 0, s = x0; k < tx.taps; k++, s += 3) {
        const w = tx.weights[wb + k]!
        r += w * row[s]!
        g += w * row[s + 1]!
        b += w * row[s + 2]!
      }
      out[o + x] = r * scale + bias
      out[plane + o + x] = g * scale + bias
      out[2 * plane + o + x] = b * scale + bias
    }
  }
}

/**
 * `resizeToPlanes` when the image gets taller (the usual case for the model's 1024²): each
 * source row is resampled horizontally once, into per-channel planes of `height × dw`, and
 * every output row blends a few of those — fewer operations than blending source rows first.
 */
function enlargeRowsToPlanes(
  src: Uint8Array,
  width: number,
  height: number,
  channels: number,
  dw: number,
  dh: number,
  out: Float32Array,
  scale: number,
  bias: number,
  tx: Taps,
  ty: Taps
): void {
  const mid = height * dw
  const rows = new Float32Array(3 * mid)
  for (let y = 0; y < height; y++) {
    const base = y * width * channels
    const o = y * dw
    for (let x = 0; x < dw; x++) {
      const wb = x * tx.taps
      let s = base + tx.start[x]! * channels
      let r = 0
      let g = 0
      let b = 0
      for (let k = 0; k < tx.taps; k++, s += channels) {
        const w = tx.weights[wb + k]!
        r += w * src[s]!
        g += w * src[s + 1]!
        b += w * src[s + 2]!
      }
      rows[o + x] = r
      rows[mid + o + x] = g
      rows[2 * mid + o + x] = b
    }
  }
  const plane = dw * dh
  for (let c = 0; c < 3; c++) {
    const from = c * mid
    const to = c * plane
    for (let y = 0; y < dh; y++) {
      const o = to + y * dw
      const wb = y * ty.taps
      const r0 = from + ty.start[y]! * dw
      if (ty.taps === 2) {
        const w0 = ty.weights[wb]! * scale
        const w1 = ty.weights[wb + 1]! * scale
        const r1 = r0 + dw
        for (let x = 0; x < dw; x++) out[o + x] = w0 * rows[r0 + x]! + w1 * rows[r1 + x]! + bias
      } else {
        for (let x = 0; x < dw; x++) {
          let v = 0
          for (let k = 0; k < ty.taps; k++) v += ty.weights[wb + k]! * rows[r0 + k * dw + x]!
          out[o + x] = v * scale + bias
        }
      }
    }
  }
}

/**
 * One 8-bit channel of `width × height` → `dw × dh`, rounded. `scaleX`/`scaleY` (source
 * pixels per output pixel) default to the ratio of the sizes. With `part` (output pixels) only
 * those are made, each exactly as the whole resize makes it, and the rest of the output is 0.
 */
export function resizeGrey(
  src: Uint8Array,
  width: number,
  height: number,
  dw: number,
  dh: number,
  scaleX = width / dw,
  scaleY = height / dh,
  part?: { x: number; y: number; width: number; height: number }
): Buffer {
  if (src.length < width * height) throw new RangeError('resizeGrey: source does not match its size')
  if (dw === width && dh === height && scaleX === 1 && scaleY === 1 && !part) {
    const out = Buffer.allocUnsafe(dw * dh)
    out.set(src.subarray(0, width * height))
    return out
  }
  const out = part ? Buffer.alloc(dw * dh) : Buffer.allocUnsafe(dw * dh)
  const px0 = part ? Math.max(0, part.x) : 0
  const py0 = part ? Math.max(0, part.y) : 0
  const px1 = part ? Math.min(dw, part.x + part.width) : dw
  const py1 = part ? Math.min(dh, part.y + part.height) : dh
  if (px1 <= px0 || py1 <= py0) return out
  const tx = triangleTaps(width, dw, scaleX)
  const ty = triangleTaps(height, dh, scaleY)
  // The source columns the part's taps read: each output pixel sums the same taps as in the whole.
  const sx0 = tx.start[px0]!
  const sx1 = Math.min(width, tx.start[px1 - 1]! + tx.taps)
  const row = new Float32Array(width)
  for (let y = py0; y < py1; y++) {
    row.fill(0, sx0, sx1)
    const y0 = ty.start[y]!
    for (let k = 0; k < ty.taps; k++) {
      const w = ty.weights[y * ty.taps + k]!
      const base = (y0 + k) * width
      for (let x = sx0; x < sx1; x++) row[x]! += w * src[base + x]!
    }
    const o = y * dw
    for (let x = px0; x < px1; x++) {
      const x0 = tx.start[x]!
      const wb = x * tx.taps
      let v = 0
      for (let k = 0; k < tx.taps; k++) {
        v += tx.weights[wb + k]! * row[x0 + k]!
      }
      out[o + x] = v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v)
    }
  }
  return out
}

/** RGB(A) bytes → RGB bytes of `dw × dh` (the alpha channel, if any, is dropped), rounded. Scales as `resizeGrey`. */
export function resizeRgb(
  src: Uint8Array,
  width: number,
  height: number,
  channels: number,
  dw: number,
  dh: number,
  scaleX = width / dw,
  scaleY = height / dh
): Buffer {
  if (channels < 3 || src.length < width * height * channels) throw new RangeError('resizeRgb: source does not match its size')
  const planes = new Float32Array(3 * dw * dh)
  resizeToPlanes(src, width, height, channels, dw, dh, planes, 1, 0, scaleX, scaleY)
  const out = Buffer.allocUnsafe(dw * dh * 3)
  const plane = dw * dh
  for (let i = 0, o = 0; i < plane; i++, o += 3) {
    out[o] = clamp255(planes[i]!)
    out[o + 1] = clamp255(planes[plane + i]!)
    out[o + 2] = clamp255(planes[2 * plane + i]!)
  }
  return out
}

function clamp255(v: number): number {
  return v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v)
}

/**
 * Per column of an image laid over a grid of `1 / inv`-pixel cells (`gw` of them): the cell the
 * column lies in, and the two cells and the weight of the second that sample the grid bilinearly
 * at the column's centre. Computed once per pass instead of per pixel.
 */
export function bilinearColumns(
  width: number,
  gw: number,
  inv: number
): { cell: Int32Array; x0: Int32Array; x1: Int32Array; wx: Float64Array } {
  const cell = new Int32Array(width)
  const x0 = new Int32Array(width)
  const x1 = new Int32Array(width)
  const wx = new Float64Array(width)
  for (let x = 0; x < width; x++) {
    cell[x] = Math.min(gw - 1, Math.floor(x * inv))
    const fx = Math.min(gw - 1, Math.max(0, (x + 0.5) * inv - 0.5))
    x0[x] = Math.floor(fx)
    x1[x] = Math.min(gw - 1, x0[x]! + 1)
    wx[x] = fx - x0[x]!
  }
  return { cell, x0, x1, wx }
}
