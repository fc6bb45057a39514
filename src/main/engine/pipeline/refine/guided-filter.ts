/**
 * The guided filter with a colour guide (He, Sun, Tang, "Guided Image Filtering", 2013).
 *
 * For each window the output is an affine function of the guide's colour, q = a·I + b, fitted
 * to the input p (here: the model's alpha) by ridge regression with weight `eps`. Where the
 * image has an edge, the alpha edge snaps to it; where it has none, the alpha is smoothed.
 *
 * Used the "fast" way (He & Sun 2015): the coefficients are computed on a coarse grid and
 * applied at full resolution with the full-resolution guide, so edges keep full-res detail.
 * All arrays are float32 planes of the coarse grid; colours and alpha in [0, 1].
 */
import { boxMean } from './box-filter'
import { scratchPlanes } from '../../scratch'

/** Interleaved 8-bit pixels: `channels` bytes per pixel, RGB first. */
export interface U8Pixels {
  data: Uint8Array
  width: number
  height: number
  channels: number
}

/** The smoothed coefficients: q = ar·R + ag·G + ab·B + b (colours in [0, 1]). */
export interface GuidedCoefficients {
  ar: Float32Array
  ag: Float32Array
  ab: Float32Array
  b: Float32Array
  width: number
  height: number
}

const INV255 = 1 / 255

/**
 * Guided filter coefficients of mask `p` (1 byte per pixel) with `guide` as the guide, both of
 * the same size. The returned planes live in the scratch arena (see `scratch.ts`): use them
 * before the next await.
 */
export function guidedCoefficients(guide: U8Pixels, p: Uint8Array, r: number, eps: number): GuidedCoefficients {
  const { width, height, channels: ch, data: img } = guide
  const n = width * height
  if (img.length < n * ch || ch < 3 || p.length < n) throw new RangeError('guidedCoefficients: guide or mask does not match the size')
  // 0–2 mean I, 3 mean p, 4–6 mean I·p, 7–12 mean I·Iᵀ (rr rg rb gg gb bb), 13 scratch, 14 tmp
  const planes = scratchPlanes(15, n)
  const [mr, mg, mb, mp, mrp, mgp, mbp, rr, rg, rb, gg, gb, bb, work, tmp] = planes as [
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array
  ]

  const mean = (target: Float32Array): void => void boxMean(work, width, height, r, tmp, target)
  channel(work, img, ch, 0, n)
  mean(mr)
  channel(work, img, ch, 1, n)
  mean(mg)
  channel(work, img, ch, 2, n)
  mean(mb)
  maskPlane(work, p, n)
  mean(mp)
  channelTimesMask(work, img, ch, 0, p, n)
  mean(mrp)
  channelTimesMask(work, img, ch, 1, p, n)
  mean(mgp)
  channelTimesMask(work, img, ch, 2, p, n)
  mean(mbp)
  channelProduct(work, img, ch, 0, 0, n)
  mean(rr)
  channelProduct(work, img, ch, 0, 1, n)
  mean(rg)
  channelProduct(work, img, ch, 0, 2, n)
  mean(rb)
  channelProduct(work, img, ch, 1, 1, n)
  mean(gg)
  channelProduct(work, img, ch, 1, 2, n)
  mean(gb)
  channelProduct(work, img, ch, 2, 2, n)
  mean(bb)

  // Solve (Σ + eps·U) a = cov(I, p) per pixel; b = mean p − a·mean I. The results overwrite
  // planes no longer needed: a → mrp/mgp/mbp, b → mp.
  for (let i = 0; i < n; i++) {
    const r0 = mr[i]!
    const g0 = mg[i]!
    const b0 = mb[i]!
    const p0 = mp[i]!
    const cr = mrp[i]! - r0 * p0
    const cg = mgp[i]! - g0 * p0
    const cb = mbp[i]! - b0 * p0
    const srr = rr[i]! - r0 * r0 + eps
    const srg = rg[i]! - r0 * g0
    const srb = rb[i]! - r0 * b0
    const sgg = gg[i]! - g0 * g0 + eps
    const sgb = gb[i]! - g0 * b0
    const sbb = bb[i]! - b0 * b0 + eps
    // Inverse of the symmetric 3×3 matrix by its adjugate.
    const irr = sgg * sbb - sgb * sgb
    const irg = sgb * srb - srg * sbb
    const irb = srg * sgb - sgg * srb
    const igg = srr * sbb - srb * srb
    const igb = srb * srg - srr * sgb
    const ibb = srr * sgg - srg * srg
    const inv = 1 / (srr * irr + srg * irg + srb * irb)
    const ar = (irr * cr + irg * cg + irb * cb) * inv
    const ag = (irg * cr + igg * cg + igb * cb) * inv
    const ab = (irb * cr + igb * cg + ibb * cb) * inv
    mrp[i] = ar
    mgp[i] = ag
    mbp[i] = ab
    mp[i] = p0 - ar * r0 - ag * g0 - ab * b0
  }
  boxMean(mrp, width, height, r, tmp, mrp)
  boxMean(mgp, width, height, r, tmp, mgp)
  boxMean(mbp, width, height, r, tmp, mbp)
  boxMean(mp, width, height, r, tmp, mp)
  return { ar: mrp, ag: mgp, ab: mbp, b: mp, width, height }
}

// Plain monomorphic loops (no per-pixel callbacks): these run over every pixel 13 times.

function channel(out: Float32Array, img: Uint8Array, ch: number, c: number, n: number): void {
  for (let i = 0, o = c; i < n; i++, o += ch) out[i] = img[o]! * INV255
}

function maskPlane(out: Float32Array, p: Uint8Array, n: number): void {
  for (let i = 0; i < n; i++) out[i] = p[i]! * INV255
}

const INV255SQ = INV255 * INV255

function channelTimesMask(out: Float32Array, img: Uint8Array, ch: number, c: number, p: Uint8Array, n: number): void {
  for (let i = 0, o = c; i < n; i++, o += ch) out[i] = img[o]! * p[i]! * INV255SQ
}

function channelProduct(out: Float32Array, img: Uint8Array, ch: number, c1: number, c2: number, n: number): void {
  for (let i = 0, o = 0; i < n; i++, o += ch) out[i] = img[o + c1]! * img[o + c2]! * INV255SQ
}
