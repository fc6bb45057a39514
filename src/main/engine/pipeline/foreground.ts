/**
 * Foreground colour estimation: given the image I and its alpha α, find colours F (subject) and
 * B (background) with I ≈ αF + (1−α)B, so that the subject can be put on a new background
 * without a fringe of the old one.
 *
 * Multilevel foreground estimation (Germer, Uelwer, Conrad, Harmeling, "Fast Multi-Level
 * Foreground Estimation", ICPR 2020), as pymatting's `estimate_foreground_ml` implements it:
 * solve on a pyramid from 1×1 up to full size, each level starting from the previous one
 * (nearest-neighbour upsampling), with a few Jacobi/Gauss-Seidel sweeps of the per-pixel 2×2
 * system that couples F and B through α and ties each pixel to its 4 neighbours with weight
 * `regularization + gradientWeight·|Δα|`.
 *
 * Restricted for speed: once a level has more than `FULL_LEVEL_PIXELS` pixels, only the band
 * where α is between 0 and 1 (or changes to a neighbour) is iterated. Elsewhere the answer of
 * the sweep is known in closed form to within the regularization (F = I where α = 1, B = I
 * where α = 0) and is set directly; the other unknown keeps its value from the coarser level.
 * On photos the band is a few percent of the pixels, so the top levels cost little.
 */
import { onScratchRelease, scratchPlanes } from './scratch'
import type { U8Pixels } from './guided-filter'

export interface ForegroundOptions {
  /** Weight tying each pixel to its neighbours where α is flat. @default 1e-5 (pymatting) */
  regularization?: number
  /** Extra neighbour weight per unit of |Δα|. @default 1 (pymatting) */
  gradientWeight?: number
  /** Sweeps on levels up to `smallSize`² pixels. @default 10 */
  smallIterations?: number
  /** Sweeps on the larger levels. @default 2 */
  bigIterations?: number
  /** @default 32 */
  smallSize?: number
  /**
   * Iterate only the band at the top level and leave F and B undefined elsewhere (`touched`
   * lists the pixels that have them). @default false
   */
  sparseTop?: boolean
}

export interface ForegroundEstimate {
  /** Interleaved RGB in [0, 1], width × height × 3. Lives in the scratch arena. */
  fg: Float32Array
  /** Interleaved RGB in [0, 1], width × height × 3. Lives in the scratch arena. */
  bg: Float32Array
  /** Pixels of the top level that were iterated (the band). */
  bandPixels: number
  /**
   * With `sparseTop`: the only pixels whose F and B are set (band and neighbours), valid until
   * the next call; else null.
   */
  touched: Int32Array | null
}

/** Levels up to this many pixels are swept whole; larger ones only in the band. */
const FULL_LEVEL_PIXELS = 16_384
const INV255 = 1 / 255

/** Reused index list and marks (the engine runs this synchronously, one image at a time). */
let bandBuffer = new Int32Array(0)
let touchedBuffer = new Int32Array(0)
let marks = new Uint8Array(0)
onScratchRelease(() => {
  bandBuffer = new Int32Array(0)
  touchedBuffer = new Int32Array(0)
  marks = new Uint8Array(0)
})

/**
 * F and B for `image` (RGB(A) bytes) and `alpha` (1 byte per pixel, same size). The returned
 * planes live in the scratch arena: use them before the next await.
 */
export function estimateForeground(image: U8Pixels, alpha: Uint8Array, opts: ForegroundOptions = {}): ForegroundEstimate {
  const reg = opts.regularization ?? 1e-5
  const gw = opts.gradientWeight ?? 1
  const smallIter = opts.smallIterations ?? 10
  const bigIter = opts.bigIterations ?? 2
  const smallSize = opts.smallSize ?? 32
  const sparse = opts.sparseTop ?? false
  const { width: w0, height: h0, channels: ch, data: img } = image
  const n0 = w0 * h0
  if (img.length < n0 * ch || ch < 3 || alpha.length < n0) throw new RangeError('estimateForeground: image or alpha does not match the size')

  // Two slots: the top level (and every second level below it) in the big one, the others in
  // the small one; each level reads the previous level from the other slot.
  const levels = Math.ceil(Math.log2(Math.max(w0, h0)))
  const size = (level: number, side: number): number => (levels === 0 ? side : Math.round(Math.pow(side, level / levels)))
  const below = levels === 0 ? 1 : size(levels - 1, w0) * size(levels - 1, h0)
  const [bigF, bigB, smallF, smallB, alphaPlane] = slots(n0, Math.max(1, below))
  let prev = { f: smallF, b: smallB, w: 1, h: 1 }
  // Before the first level: the image's mean colour for both unknowns.
  const mean = meanColour(img, ch, n0)
  prev.f.set(mean)
  prev.b.set(mean)
  let bandPixels = 0

  let touched: Int32Array | null = null
  for (let level = 0; level <= levels; level++) {
    const w = size(level, w0)
    const h = size(level, h0)
    const inBig = (levels - level) % 2 === 0
    const f = inBig ? bigF : smallF
    const b = inBig ? bigB : smallB
    const ctx: Level = { w, h, xs: nearest(w, w0), ys: nearest(h, h0), w0, img, ch, a: alphaPlane.subarray(0, w * h), f, b, reg, gw }
    const iterations = w <= smallSize && h <= smallSize ? smallIter : bigIter
    const top = level === levels
    if (top && sparse && w * h > FULL_LEVEL_PIXELS) {
      // Top level, band only: the band's pixels and their neighbours are the only ones read,
      // so only they get alpha, a starting value and their known unknown.
      const band = bandOfBytes(alpha, w, h)
      touched = withNeighbours(band, w, h)
      for (let k = 0; k < touched.length; k++) {
        const i = touched[k]!
        ctx.a[i] = alpha[i]! * INV255
      }
      fromPrevious(ctx, prev, touched)
      setKnown(ctx, touched)
      for (let it = 0; it < iterations; it++) for (let k = 0; k < band.length; k++) update(ctx, band[k]!)
      bandPixels = band.length
    } else {
      fromPrevious(ctx, prev, null)
      sampleAlpha(ctx, alpha)
      if (w * h <= FULL_LEVEL_PIXELS) {
        for (let it = 0; it < iterations; it++) for (let i = 0; i < w * h; i++) update(ctx, i)
        bandPixels = w * h
      } else {
        setKnown(ctx, null)
        const band = bandOf(ctx)
        for (let it = 0; it < iterations; it++) for (let k = 0; k < band.length; k++) update(ctx, band[k]!)
        bandPixels = band.length
      }
    }
    prev = { f, b, w, h }
  }
  return { fg: prev.f.subarray(0, n0 * 3), bg: prev.b.subarray(0, n0 * 3), bandPixels, touched }
}

interface Previous {
  f: Float32Array
  b: Float32Array
  w: number
  h: number
}

/** F and B of this level's pixels (all, or `only` those) from the previous level, nearest neighbour. */
function fromPrevious(l: Level, prev: Previous, only: Int32Array | null): void {
  const { w, h, f, b } = l
  const px = nearest(w, prev.w)
  const py = nearest(h, prev.h)
  const copy = (i: number, q: number): void => {
    const o = i * 3
    f[o] = prev.f[q]!
    f[o + 1] = prev.f[q + 1]!
    f[o + 2] = prev.f[q + 2]!
    b[o] = prev.b[q]!
    b[o + 1] = prev.b[q + 1]!
    b[o + 2] = prev.b[q + 2]!
  }
  if (only) {
    for (let k = 0; k < only.length; k++) {
      const i = only[k]!
      const x = i % w
      copy(i, (py[(i - x) / w]! * prev.w + px[x]!) * 3)
    }
    return
  }
  for (let y = 0, i = 0; y < h; y++) {
    const prow = py[y]! * prev.w
    for (let x = 0; x < w; x++, i++) copy(i, (prow + px[x]!) * 3)
  }
}

/** This level's alpha in [0, 1], sampled nearest from the source alpha. */
function sampleAlpha(l: Level, alpha: Uint8Array): void {
  const { w, h, a } = l
  for (let y = 0, i = 0; y < h; y++) {
    const row = l.ys[y]! * l.w0
    for (let x = 0; x < w; x++, i++) a[i] = alpha[row + l.xs[x]!]! * INV255
  }
}

interface Level {
  w: number
  h: number
  /** Source column / row of each level column / row. */
  xs: Int32Array
  ys: Int32Array
  w0: number
  img: Uint8Array
  ch: number
  a: Float32Array
  f: Float32Array
  b: Float32Array
  reg: number
  gw: number
}

/** One Gauss-Seidel update of pixel i (pymatting's `_estimate_fg_bg_ml` inner loop). */
function update(l: Level, i: number): void {
  const { w, h, a, f, b, reg, gw, img, ch } = l
  const x = i % w
  const y = (i - x) / w
  const a0 = a[i]!
  const a1 = 1 - a0
  const s = (l.ys[y]! * l.w0 + l.xs[x]!) * ch
  const ir = img[s]! * INV255
  const ig = img[s + 1]! * INV255
  const ib = img[s + 2]! * INV255
  // Neighbours left, right, up, down, clamped at the borders (as pymatting does: a clamped
  // neighbour is the pixel itself, with weight `reg`).
  const jl = x > 0 ? i - 1 : i
  const jr = x < w - 1 ? i + 1 : i
  const ju = y > 0 ? i - w : i
  const jd = y < h - 1 ? i + w : i
  const dl = reg + gw * Math.abs(a0 - a[jl]!)
  const dr = reg + gw * Math.abs(a0 - a[jr]!)
  const du = reg + gw * Math.abs(a0 - a[ju]!)
  const dd = reg + gw * Math.abs(a0 - a[jd]!)
  const sum = dl + dr + du + dd
  const a00 = a0 * a0 + sum
  const a01 = a0 * a1
  const a11 = a1 * a1 + sum
  const ql = jl * 3
  const qr = jr * 3
  const qu = ju * 3
  const qd = jd * 3
  const f0 = a0 * ir + dl * f[ql]! + dr * f[qr]! + du * f[qu]! + dd * f[qd]!
  const f1 = a0 * ig + dl * f[ql + 1]! + dr * f[qr + 1]! + du * f[qu + 1]! + dd * f[qd + 1]!
  const f2 = a0 * ib + dl * f[ql + 2]! + dr * f[qr + 2]! + du * f[qu + 2]! + dd * f[qd + 2]!
  const b0 = a1 * ir + dl * b[ql]! + dr * b[qr]! + du * b[qu]! + dd * b[qd]!
  const b1 = a1 * ig + dl * b[ql + 1]! + dr * b[qr + 1]! + du * b[qu + 1]! + dd * b[qd + 1]!
  const b2 = a1 * ib + dl * b[ql + 2]! + dr * b[qr + 2]! + du * b[qu + 2]! + dd * b[qd + 2]!
  const inv = 1 / (a00 * a11 - a01 * a01)
  const m00 = inv * a11
  const m01 = -inv * a01
  const m11 = inv * a00
  const o = i * 3
  f[o] = clamp01(m00 * f0 + m01 * b0)
  f[o + 1] = clamp01(m00 * f1 + m01 * b1)
  f[o + 2] = clamp01(m00 * f2 + m01 * b2)
  b[o] = clamp01(m01 * f0 + m11 * b0)
  b[o + 1] = clamp01(m01 * f1 + m11 * b1)
  b[o + 2] = clamp01(m01 * f2 + m11 * b2)
}

/** Outside the band: F = I where α = 1, B = I where α = 0 (what a sweep would give there). */
function setKnown(l: Level, only: Int32Array | null): void {
  const { w, a, f, b, img, ch } = l
  const set = (i: number): void => {
    const v = a[i]!
    if (v !== 1 && v !== 0) return
    const x = i % w
    const s = (l.ys[(i - x) / w]! * l.w0 + l.xs[x]!) * ch
    const t = v === 1 ? f : b
    const o = i * 3
    t[o] = img[s]! * INV255
    t[o + 1] = img[s + 1]! * INV255
    t[o + 2] = img[s + 2]! * INV255
  }
  if (only) for (let k = 0; k < only.length; k++) set(only[k]!)
  else for (let i = 0, n = w * l.h; i < n; i++) set(i)
}

/** Pixels whose α is strictly between 0 and 1, or differs from a 4-neighbour's. */
function bandOf(l: Level): Int32Array {
  const { w, h, a } = l
  if (bandBuffer.length < w * h) bandBuffer = new Int32Array(w * h)
  let k = 0
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0; x < w; x++, i++) {
      const v = a[i]!
      if (
        (v !== 0 && v !== 1) ||
        (x > 0 && a[i - 1] !== v) ||
        (x < w - 1 && a[i + 1] !== v) ||
        (y > 0 && a[i - w] !== v) ||
        (y < h - 1 && a[i + w] !== v)
      ) {
        bandBuffer[k++] = i
      }
    }
  }
  return bandBuffer.subarray(0, k)
}

/** `bandOf` on the top level, straight from the 8-bit alpha (no float plane needed). */
function bandOfBytes(alpha: Uint8Array, w: number, h: number): Int32Array {
  if (bandBuffer.length < w * h) bandBuffer = new Int32Array(w * h)
  let k = 0
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0; x < w; x++, i++) {
      const v = alpha[i]!
      if (
        (v !== 0 && v !== 255) ||
        (x > 0 && alpha[i - 1] !== v) ||
        (x < w - 1 && alpha[i + 1] !== v) ||
        (y > 0 && alpha[i - w] !== v) ||
        (y < h - 1 && alpha[i + w] !== v)
      ) {
        bandBuffer[k++] = i
      }
    }
  }
  return bandBuffer.subarray(0, k)
}

/** The band and its 4-neighbours, each once. Valid until the next call. */
function withNeighbours(band: Int32Array, w: number, h: number): Int32Array {
  const n = w * h
  if (marks.length < n) marks = new Uint8Array(n)
  if (touchedBuffer.length < n) touchedBuffer = new Int32Array(n)
  const out = touchedBuffer
  let k = 0
  for (let t = 0; t < band.length; t++) {
    const i = band[t]!
    const x = i % w
    if (marks[i] === 0) (marks[i] = 1), (out[k++] = i)
    if (x > 0 && marks[i - 1] === 0) (marks[i - 1] = 1), (out[k++] = i - 1)
    if (x < w - 1 && marks[i + 1] === 0) (marks[i + 1] = 1), (out[k++] = i + 1)
    if (i >= w && marks[i - w] === 0) (marks[i - w] = 1), (out[k++] = i - w)
    if (i + w < n && marks[i + w] === 0) (marks[i + w] = 1), (out[k++] = i + w)
  }
  for (let t = 0; t < k; t++) marks[out[t]!] = 0
  return out.subarray(0, k)
}

/** For each of `n` target indices, the source index `floor(i·src/n)` (pymatting's resize_nearest). */
function nearest(n: number, src: number): Int32Array {
  const out = new Int32Array(n)
  for (let i = 0; i < n; i++) out[i] = Math.min(src - 1, Math.floor((i * src) / n))
  return out
}

/** The mean colour, from at most ~65k evenly spread pixels (it only seeds the 1×1 level). */
function meanColour(img: Uint8Array, ch: number, n: number): [number, number, number] {
  const step = Math.max(1, Math.floor(n / 65_536))
  let r = 0
  let g = 0
  let b = 0
  let count = 0
  for (let i = 0; i < n; i += step, count++) {
    const o = i * ch
    r += img[o]!
    g += img[o + 1]!
    b += img[o + 2]!
  }
  return [(r / count) * INV255, (g / count) * INV255, (b / count) * INV255]
}

/**
 * Scratch for the pyramid: F and B of the big slot (the top level, `n` pixels), of the small
 * slot (`small` pixels: the largest level of the other parity, i.e. the one below the top),
 * and one plane for the levels' alpha.
 */
function slots(n: number, small: number): [Float32Array, Float32Array, Float32Array, Float32Array, Float32Array] {
  const p = scratchPlanes(1, n * 7 + small * 6)[0]!
  let at = 0
  const take = (len: number): Float32Array => p.subarray(at, (at += len))
  return [take(3 * n), take(3 * n), take(3 * small), take(3 * small), take(n)]
}

function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v
}
