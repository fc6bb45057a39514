/**
 * Scores of a cutout against a known answer (the quality benchmark's composites), and of an
 * alpha against a reference alpha (real photos). Alpha in bytes (0–255); colours RGB bytes.
 *
 * - soft band: pixels whose true alpha is between 3 % and 97 % (8–247 in bytes): where the
 *   subject and the old background mix, and where matting errors show.
 * - edge band: the soft band plus the pixels next to where the true alpha crosses 50 %, widened
 *   by EDGE_GROW pixels: fixed per composite (it does not depend on the method measured), and
 *   never empty for a hard-edged subject.
 */

export interface KnownAnswer {
  width: number
  height: number
  /** True alpha, 1 byte per pixel. */
  alpha: Buffer
  /** True subject colours, RGB. */
  fg: Buffer
  /** The composite's background, RGB (for the contrasting colour). */
  bg: Buffer
}

export interface Cutout {
  alpha: Buffer
  /** RGBA: the colours composited with `alpha`. */
  foreground: Buffer
}

export interface Scores {
  /** Alpha IoU at 50 %. */
  iou: number
  /** Mean |Δα| (0–255) over the soft band. */
  sad_band: number
  /** Mean |Δα| (0–255) over the edge band (the soft band and ±EDGE_GROW px around the 50 % crossing). */
  sad_edge: number
  /** Mean (|∇α̂| − |∇α|)² × 1000 (α in [0, 1], central differences) over the soft band. */
  grad_band: number
  /** Mean |F̂ − F| per channel (0–255) over the soft band where α̂ > 10 %. */
  fg_error_band: number
  /** Mean |cutout on C − truth on C| per channel (0–255) over the soft band where α̂ > 10 %, C contrasting. */
  halo: number
  /** Pixels the colour error and the halo are taken over (soft band, α̂ > 10 %): with none, both are 0 and say nothing. */
  scored_pixels: number
}

const SOFT_LOW = 8
const SOFT_HIGH = 247
/** 10 % of 255. */
const PRED_MIN = 26
const EDGE_GROW = 2

/** Flags of the soft band (true alpha 3–97 %). */
export function softBand(alpha: Buffer): Uint8Array {
  const band = new Uint8Array(alpha.length)
  for (let i = 0; i < alpha.length; i++) band[i] = alpha[i]! >= SOFT_LOW && alpha[i]! <= SOFT_HIGH ? 1 : 0
  return band
}

/** Flags of the edge band (see the file's comment). */
export function edgeBand(alpha: Buffer, width: number, height: number, grow = EDGE_GROW): Uint8Array {
  let band = softBand(alpha)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x
      const inside = alpha[i]! >= 128
      if ((x + 1 < width && alpha[i + 1]! >= 128 !== inside) || (y + 1 < height && alpha[i + width]! >= 128 !== inside)) band[i] = 1
    }
  for (let g = 0; g < grow; g++) {
    const prev = band
    band = Uint8Array.from(prev)
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const i = y * width + x
        if (prev[i]) continue
        if ((x > 0 && prev[i - 1]) || (x + 1 < width && prev[i + 1]) || (y > 0 && prev[i - width]) || (y + 1 < height && prev[i + width]))
          band[i] = 1
      }
  }
  return band
}

/** The palette colour farthest from the old background's mean over the band: where a halo shows most. */
export function contrastingColour(t: KnownAnswer, band: Uint8Array): [number, number, number] {
  const palette: Array<[number, number, number]> = [
    [255, 0, 255],
    [0, 255, 0],
    [0, 255, 255],
    [255, 255, 0],
    [0, 0, 0],
    [255, 255, 255],
    [0, 0, 255],
    [255, 0, 0]
  ]
  const mean = [0, 0, 0]
  let count = 0
  for (let i = 0; i < band.length; i++) {
    if (!band[i]) continue
    for (let c = 0; c < 3; c++) mean[c]! += t.bg[i * 3 + c]!
    count++
  }
  for (let c = 0; c < 3; c++) mean[c]! /= Math.max(1, count)
  let best = palette[0]!
  let bestD = -1
  for (const p of palette) {
    const d = Math.hypot(p[0] - mean[0]!, p[1] - mean[1]!, p[2] - mean[2]!)
    if (d > bestD) {
      bestD = d
      best = p
    }
  }
  return best
}

export function iou(a: Buffer, b: Buffer, mask?: Uint8Array): number {
  let inter = 0
  let union = 0
  for (let i = 0; i < a.length; i++) {
    if (mask && !mask[i]) continue
    const x = a[i]! >= 128
    const y = b[i]! >= 128
    if (x && y) inter++
    if (x || y) union++
  }
  return union === 0 ? 1 : inter / union
}

/** Mean |a − b| (0–255), over `mask` when given. */
export function meanAbs(a: Buffer, b: Buffer, mask?: Uint8Array): number {
  let s = 0
  let n = 0
  for (let i = 0; i < a.length; i++) {
    if (mask && !mask[i]) continue
    s += Math.abs(a[i]! - b[i]!)
    n++
  }
  return s / Math.max(1, n)
}

function gradient(a: Buffer, width: number, height: number, i: number): number {
  const x = i % width
  const y = (i - x) / width
  const l = a[x > 0 ? i - 1 : i]!
  const r = a[x + 1 < width ? i + 1 : i]!
  const u = a[y > 0 ? i - width : i]!
  const d = a[y + 1 < height ? i + width : i]!
  return Math.hypot(r - l, d - u) / 2 / 255
}

/** Every score of a cutout against the known answer. `soft` and `edge` from softBand/edgeBand of the truth. */
export function score(t: KnownAnswer, p: Cutout, soft: Uint8Array, edge: Uint8Array, contrast: [number, number, number]): Scores {
  let sad = 0
  let grad = 0
  let nSoft = 0
  let fgErr = 0
  let nFg = 0
  for (let i = 0; i < soft.length; i++) {
    if (!soft[i]) continue
    nSoft++
    sad += Math.abs(t.alpha[i]! - p.alpha[i]!)
    const dg = gradient(p.alpha, t.width, t.height, i) - gradient(t.alpha, t.width, t.height, i)
    grad += dg * dg
    if (p.alpha[i]! >= PRED_MIN) {
      for (let c = 0; c < 3; c++) fgErr += Math.abs(p.foreground[i * 4 + c]! - t.fg[i * 3 + c]!)
      nFg += 3
    }
  }
  let halo = 0
  let nHalo = 0
  for (let i = 0; i < soft.length; i++) {
    if (!soft[i] || p.alpha[i]! < PRED_MIN) continue
    const at = t.alpha[i]! / 255
    const ap = p.alpha[i]! / 255
    for (let c = 0; c < 3; c++) {
      const want = at * t.fg[i * 3 + c]! + (1 - at) * contrast[c]!
      const got = ap * p.foreground[i * 4 + c]! + (1 - ap) * contrast[c]!
      halo += Math.abs(want - got)
    }
    nHalo += 3
  }
  return {
    iou: iou(t.alpha, p.alpha),
    sad_band: sad / Math.max(1, nSoft),
    sad_edge: meanAbs(t.alpha, p.alpha, edge),
    grad_band: (grad / Math.max(1, nSoft)) * 1000,
    fg_error_band: fgErr / Math.max(1, nFg),
    halo: halo / Math.max(1, nHalo),
    scored_pixels: nHalo / 3
  }
}
