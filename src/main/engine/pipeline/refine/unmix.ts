/**
 * The colour half of the refine step: for each soft pixel, its alpha corrected by the colours
 * around it and the subject's own colour without the old background.
 *
 * Around the pixel, F̄ and B̄ are the local means of the known-subject and known-background
 * colours (`known-colours.ts`), with the variance of each. B̄ is taken over a small window where
 * that holds known background (on a cluttered background the pixels right next to the edge are
 * nearer the colour behind it), else over the wide one. Per pixel:
 *
 * 1. Alpha from the colour line. If the pixel mixes F̄ and B̄, its position between them is its
 *    alpha: α_c = (I − B̄)·(F̄ − B̄) / |F̄ − B̄|². That is only worth something where F̄ and B̄ are far
 *    apart compared with how far the pixel's own subject and background colours may be from them
 *    and with how far I is from the line: I = αF + (1 − α)B moves off the mix of the means by
 *    α(F − F̄) + (1 − α)(B − B̄), so the weight w_c = s / (s + LINE_TRUST·(α_c²σ_F² + (1 − α_c)²σ_B² + r²)),
 *    s = |F̄ − B̄|², r the distance of I from the line, blends α_c into the guided-filter alpha. Where
 *    the subject and the background are both plain (a product on a backdrop, hair against the
 *    sky) it carries most of the weight; on textured fur or a busy background, little; where the
 *    window holds no known subject or no known background (variance +∞), none. The result
 *    never crosses 50 % where the model's mask did not (IoU stays the model's).
 * 2. Colour. F = B̄ + (I − B̄)/α_u, the one colour that explains the photo with that background.
 *    Dividing by an alpha that is too small overshoots: a thin strand the model blurred to 60 %
 *    that is in fact nearly opaque comes out oversaturated, further from the truth than the
 *    photo's own colour. Where the colour line says the pixel is more opaque than α, the colour
 *    is unmixed with α_u = α + HEDGE·(α_c − α) (α itself is not changed). Where the known
 *    background is busy (σ_B² large against |I − B̄|²) that B̄ may not be the colour behind this
 *    pixel, and F is blended back towards the photo's own colour I:
 *    w_b = |I − B̄|² / (|I − B̄|² + BG_TRUST·σ_B²).
 *
 * The figures that chose the constants: docs/pipeline.md.
 */

import type { KnownMeans } from './known-colours'
import { bilinearColumns } from '../../segment/mask/resample'
import { boundToSide } from './side-bound'

const INV255 = 1 / 255
/** Below this alpha (10 %) a pixel's colour says too little about F (dividing by α would amplify its noise into speckles): the local subject mean is used. */
const UNMIX_MIN_ALPHA = 0.1
/** How strongly colour spread and distance from the line discount the colour-line alpha. */
const LINE_TRUST = 100
/** How far towards a higher colour-line alpha the colour is unmixed with (see 2. above). */
const HEDGE = 0.4
/** How strongly a busy known background discounts the unmixed colour. */
const BG_TRUST = 3
/** F̄ and B̄ closer than this (squared, colours in [0, 1]) give no colour line. */
const MIN_SEPARATION = 1e-4

/**
 * Unmixes `out` (RGBA, the photo's colours) in place over the soft band of `alpha` and the
 * transparent pixels next to it, and corrects `alpha` there (kept on the side of 50 % that `sides`,
 * the model's own mask at full size, is on). Returns the number of pixels written.
 */
export function unmix(out: Buffer, alpha: Buffer, sides: Buffer, width: number, height: number, k: KnownMeans): number {
  const { width: ww, height: wh, fg: fMean, bg: bMean, near } = k
  let count = 0
  const same = k.step === 1
  // Grid cells per image pixel, along both sides.
  const inv = 1 / k.step
  const cols = same ? null : bilinearColumns(width, ww, inv)
  const f = [0, 0, 0]
  const bk = [0, 0, 0]
  const d = [0, 0, 0]
  /** The four cells around a pixel and their bilinear weights (one cell, weight 1, when `same`). */
  const q = [0, 0, 0, 0]
  const wq = [1, 0, 0, 0]
  const sample = (plane: Float32Array, out: number[]): void => {
    for (let c = 0; c < 3; c++)
      out[c] = plane[q[0]! + c]! * wq[0]! + plane[q[1]! + c]! * wq[1]! + plane[q[2]! + c]! * wq[2]! + plane[q[3]! + c]! * wq[3]!
  }
  for (let y = 0; y < height; y++) {
    const fy = Math.min(wh - 1, Math.max(0, (y + 0.5) * inv - 0.5))
    const y0 = Math.floor(fy)
    const y1 = Math.min(wh - 1, y0 + 1)
    const wy = fy - y0
    const vRow = Math.round(fy) * ww
    for (let x = 0; x < width; x++) {
      const i = y * width + x
      const a8 = alpha[i]!
      if (a8 === 255) continue
      if (
        a8 === 0 &&
        !(
          (x > 0 && alpha[i - 1]! > 0) ||
          (x < width - 1 && alpha[i + 1]! > 0) ||
          (y > 0 && alpha[i - width]! > 0) ||
          (y < height - 1 && alpha[i + width]! > 0)
        )
      ) {
        continue
      }
      let v: number
      if (same) {
        v = i
        q[0] = q[1] = q[2] = q[3] = i * 3
      } else {
        const x0 = cols!.x0[x]!
        const x1 = cols!.x1[x]!
        const wx = cols!.wx[x]!
        // The nearest cell, for the variances (Math.round of the sampling position).
        v = vRow + (wx >= 0.5 ? x0 + 1 : x0)
        q[0] = (y0 * ww + x0) * 3
        q[1] = (y0 * ww + x1) * 3
        q[2] = (y1 * ww + x0) * 3
        q[3] = (y1 * ww + x1) * 3
        wq[0] = (1 - wx) * (1 - wy)
        wq[1] = wx * (1 - wy)
        wq[2] = (1 - wx) * wy
        wq[3] = wx * wy
      }
      sample(fMean, f)
      const useNear = near !== null && near.bgVar[v]! < Infinity
      sample(useNear ? near.bg : bMean, bk)
      const bgVar = useNear ? near.bgVar[v]! : k.bgVar[v]!
      const fgVar = k.fgVar[v]!
      const o = i * 4
      count++
      let sep = 0
      let proj = 0
      let d2 = 0
      for (let c = 0; c < 3; c++) {
        d[c] = out[o + c]! * INV255 - bk[c]!
        const e = f[c]! - bk[c]!
        sep += e * e
        proj += d[c]! * e
        d2 += d[c]! * d[c]!
      }
      let a = a8 * INV255
      // The alpha the colour is unmixed with.
      let au = a
      if (a8 > 0 && sep > MIN_SEPARATION) {
        const ac = Math.min(1, Math.max(0, proj / sep))
        // Squared distance of I from the mix α_c·F̄ + (1 − α_c)·B̄ (off the segment counts too).
        let r2 = 0
        for (let c = 0; c < 3; c++) {
          const m = ac * (f[c]! - bk[c]!) - d[c]!
          r2 += m * m
        }
        const wc =
          fgVar === Infinity || bgVar === Infinity ? 0 : sep / (sep + LINE_TRUST * (ac * ac * fgVar + (1 - ac) * (1 - ac) * bgVar + r2))
        let n8 = Math.round((wc * ac + (1 - wc) * a) * 255)
        n8 = boundToSide(n8, sides[i]!)
        alpha[i] = n8
        a = n8 * INV255
        au = ac > a ? a + HEDGE * (ac - a) : a
      }
      if (a <= UNMIX_MIN_ALPHA) {
        for (let c = 0; c < 3; c++) out[o + c] = Math.round(Math.min(1, Math.max(0, f[c]!)) * 255)
        continue
      }
      const wb = d2 / (d2 + BG_TRUST * bgVar + 1e-9)
      for (let c = 0; c < 3; c++) {
        const unmixed = bk[c]! + d[c]! / au
        const val = wb * unmixed + (1 - wb) * out[o + c]! * INV255
        out[o + c] = val <= 0 ? 0 : val >= 1 ? 255 : Math.round(val * 255)
      }
    }
  }
  return count
}
