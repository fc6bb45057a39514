/**
 * The peers' foreground colour estimation, for the quality benchmark's rows beside ours: each
 * takes the photo and an alpha (the model's raw mask, upscaled) and returns the subject's
 * colours (RGBA, A = 255), as the peers would composite them with that same alpha.
 *
 * - Blur fusion (Forte & Pitié 2021, "Approximate Fast Foreground Colour Estimation"), as
 *   BiRefNet's `refine_foreground` runs it: F̄ and B̄ are alpha-weighted box blurs of the
 *   foreground and background colours, and F = F̄ + α(I − αF̄ − (1 − α)B̄); a first pass with a
 *   90-pixel box from the photo alone, a second with a 6-pixel box from the first's F and B̄.
 * - Multi-level (Germer, Uelwer, Conrad & Harmeling 2020, "Fast Multi-Level Foreground
 *   Estimation"), as pymatting's `estimate_foreground_ml` (which rembg's decontamination calls):
 *   coarse to fine over ⌈log₂ max(w, h)⌉ levels, at each level F and B upsampled (nearest) from
 *   the last, then Gauss–Seidel sweeps of the per-pixel 2×2 system that fits I = αF + (1 − α)B
 *   with F and B smooth where alpha is (neighbour weight ε + |Δα|); 4 sweeps on levels of at most
 *   32 px a side, 1 above.
 */
import { boxMean } from '../src/main/engine/pipeline/refine/box-filter'

interface Photo {
  /** RGBA bytes. */
  data: Buffer
  width: number
  height: number
}

/** Blur fusion's two passes; box sizes as cv2.blur's (r × r), the radius r / 2 rounded down. */
export function blurFusion(photo: Photo, alpha: Buffer, first = 90, second = 6): Buffer {
  const { width: w, height: h } = photo
  const n = w * h
  const a = new Float32Array(n)
  for (let i = 0; i < n; i++) a[i] = alpha[i]! / 255
  const image = channels(photo)
  const one = fusionPass(image, image, image, a, w, h, first >> 1)
  const two = fusionPass(image, one.f, one.b, a, w, h, second >> 1)
  return toRgba(two.f, n)
}

function fusionPass(
  image: Float32Array[],
  f: Float32Array[],
  b: Float32Array[],
  a: Float32Array,
  w: number,
  h: number,
  r: number
): { f: Float32Array[]; b: Float32Array[] } {
  const n = w * h
  const tmp = new Float32Array(n)
  const blurredA = boxMean(a, w, h, r, tmp, new Float32Array(n))
  const outF: Float32Array[] = []
  const outB: Float32Array[] = []
  for (let c = 0; c < 3; c++) {
    const fa = new Float32Array(n)
    const ba = new Float32Array(n)
    for (let i = 0; i < n; i++) {
      fa[i] = f[c]![i]! * a[i]!
      ba[i] = b[c]![i]! * (1 - a[i]!)
    }
    boxMean(fa, w, h, r, tmp, fa)
    boxMean(ba, w, h, r, tmp, ba)
    const fc = new Float32Array(n)
    for (let i = 0; i < n; i++) {
      const bf = fa[i]! / (blurredA[i]! + 1e-5)
      const bb = ba[i]! / (1 - blurredA[i]! + 1e-5)
      ba[i] = bb
      fc[i] = Math.min(1, Math.max(0, bf + a[i]! * (image[c]![i]! - a[i]! * bf - (1 - a[i]!) * bb)))
    }
    outF.push(fc)
    outB.push(ba)
  }
  return { f: outF, b: outB }
}

/** pymatting's `estimate_foreground_ml` with its defaults (ε = 1e-5, gradient weight 1). */
export function multiLevel(photo: Photo, alpha: Buffer, regularization = 1e-5, gradientWeight = 1): Buffer {
  const { width: w0, height: h0 } = photo
  const n0 = w0 * h0
  const image0 = channels(photo)
  const alpha0 = new Float32Array(n0)
  for (let i = 0; i < n0; i++) alpha0[i] = alpha[i]! / 255
  const mean = [0, 1, 2].map((c) => image0[c]!.reduce((s, v) => s + v, 0) / n0)
  let f: Float32Array[] = mean.map((m) => Float32Array.of(m))
  let b: Float32Array[] = mean.map((m) => Float32Array.of(m))
  let pw = 1
  let ph = 1
  const levels = Math.ceil(Math.log2(Math.max(w0, h0)))
  for (let level = 0; level <= levels; level++) {
    const w = Math.round(w0 ** (level / levels))
    const h = Math.round(h0 ** (level / levels))
    const img = image0.map((p) => nearest(p, w0, h0, w, h))
    const a = nearest(alpha0, w0, h0, w, h)
    f = f.map((p) => nearest(p, pw, ph, w, h))
    b = b.map((p) => nearest(p, pw, ph, w, h))
    const sweeps = w <= 32 && h <= 32 ? 4 : 1
    for (let s = 0; s < sweeps; s++) sweep(img, a, f, b, w, h, regularization, gradientWeight)
    pw = w
    ph = h
  }
  return toRgba(f, n0)
}

function sweep(
  img: Float32Array[],
  a: Float32Array,
  f: Float32Array[],
  b: Float32Array[],
  w: number,
  h: number,
  regularization: number,
  gradientWeight: number
): void {
  const b0 = [0, 0, 0]
  const b1 = [0, 0, 0]
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x
      const a0 = a[i]!
      const a1 = 1 - a0
      let a00 = a0 * a0
      const a01 = a0 * a1
      let a11 = a1 * a1
      for (let c = 0; c < 3; c++) {
        b0[c] = a0 * img[c]![i]!
        b1[c] = a1 * img[c]![i]!
      }
      const neighbours = [x > 0 ? i - 1 : i, x + 1 < w ? i + 1 : i, y > 0 ? i - w : i, y + 1 < h ? i + w : i]
      for (const j of neighbours) {
        const da = regularization + gradientWeight * Math.abs(a0 - a[j]!)
        a00 += da
        a11 += da
        for (let c = 0; c < 3; c++) {
          b0[c]! += da * f[c]![j]!
          b1[c]! += da * b[c]![j]!
        }
      }
      const inv = 1 / (a00 * a11 - a01 * a01)
      const m00 = inv * a11
      const m01 = -inv * a01
      const m11 = inv * a00
      for (let c = 0; c < 3; c++) {
        f[c]![i] = Math.min(1, Math.max(0, m00 * b0[c]! + m01 * b1[c]!))
        b[c]![i] = Math.min(1, Math.max(0, m01 * b0[c]! + m11 * b1[c]!))
      }
    }
}

/** Nearest-neighbour resize (pymatting's `resize_nearest`: the source pixel under each target pixel's corner scaled). */
function nearest(src: Float32Array, sw: number, sh: number, w: number, h: number): Float32Array {
  if (sw === w && sh === h) return Float32Array.from(src)
  const out = new Float32Array(w * h)
  for (let y = 0; y < h; y++) {
    const sy = Math.min(sh - 1, Math.floor((y * sh) / h))
    for (let x = 0; x < w; x++) out[y * w + x] = src[sy * sw + Math.min(sw - 1, Math.floor((x * sw) / w))]!
  }
  return out
}

/** The photo's R, G, B planes in [0, 1]. */
function channels(photo: Photo): Float32Array[] {
  const n = photo.width * photo.height
  return [0, 1, 2].map((c) => {
    const p = new Float32Array(n)
    for (let i = 0; i < n; i++) p[i] = photo.data[i * 4 + c]! / 255
    return p
  })
}

function toRgba(planes: Float32Array[], n: number): Buffer {
  const out = Buffer.alloc(n * 4, 255)
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) out[i * 4 + c] = Math.round(planes[c]![i]! * 255)
  return out
}
