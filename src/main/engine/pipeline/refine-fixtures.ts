/**
 * Composites with a known answer, drawn in code for the refine tests and the quality
 * benchmark: a subject of known colour F and known alpha α (a disc with a soft rim and thin
 * "hairs" of partial coverage) over a background B, I = αF + (1−α)B.
 */

export interface KnownComposite {
  width: number
  height: number
  /** The photo: RGBA, opaque. */
  image: Buffer
  /** The true alpha, 1 byte per pixel. */
  alpha: Buffer
  /** The true subject colours, RGB. */
  fg: Buffer
}

export type Colour = (x: number, y: number) => [number, number, number]

/** A warm subject with some texture, so that F is not one flat colour. */
export const SUBJECT: Colour = (x, y) => [200 + 40 * Math.sin(x / 17), 90 + 30 * Math.cos(y / 13), 40]
/** A light, cool background like a studio sky. */
export const SKY: Colour = (x, y) => [150 + (x % 50), 200, 245 - (y % 40)]
/** A textured green background. */
export const FOLIAGE: Colour = (x, y) => [40, 140 + 50 * Math.sin(x / 7) * Math.cos(y / 9), 50]

/**
 * The fuzzy subject's true alpha at (x, y): a disc of radius `r` centred at (cx, cy) with a rim
 * soft over `soft` pixels, plus 24 straight hairs of width ~1.5 px and 60 % coverage reaching
 * 1.5 r out (like fur seen against the light).
 */
function fuzzyAlpha(x: number, y: number, cx: number, cy: number, r: number, soft: number): number {
  const dx = x - cx
  const dy = y - cy
  const d = Math.hypot(dx, dy)
  let a = Math.min(1, Math.max(0, (r - d) / soft + 0.5))
  if (d > r * 0.8 && d < r * 1.5) {
    const angle = Math.atan2(dy, dx)
    const step = (2 * Math.PI) / 24
    const nearest = Math.round(angle / step) * step
    const off = Math.abs(d * Math.sin(angle - nearest)) // distance to the hair's line
    const hair = Math.max(0, 1 - off / 1.5) * 0.6 * (1 - (d - r * 0.8) / (r * 0.7))
    a = Math.max(a, hair)
  }
  return a
}

export function fuzzyComposite(width: number, height: number, background: Colour, subject: Colour = SUBJECT): KnownComposite {
  const n = width * height
  const image = Buffer.alloc(n * 4)
  const alpha = Buffer.alloc(n)
  const fg = Buffer.alloc(n * 3)
  const cx = width / 2
  const cy = height / 2
  const r = Math.min(width, height) * 0.3
  const soft = Math.max(1.5, r / 40)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x
      const a = fuzzyAlpha(x + 0.5, y + 0.5, cx, cy, r, soft)
      const f = subject(x, y)
      const b = background(x, y)
      alpha[i] = Math.round(a * 255)
      const a8 = alpha[i]! / 255
      for (let c = 0; c < 3; c++) {
        fg[i * 3 + c] = Math.round(f[c]!)
        image[i * 4 + c] = Math.round(a8 * fg[i * 3 + c]! + (1 - a8) * b[c]!)
      }
      image[i * 4 + 3] = 255
    }
  }
  return { width, height, image, alpha, fg }
}

/** Mean |α − α̂| over all pixels, in 0–255 units. */
export function alphaError(truth: Buffer, estimate: Buffer): number {
  let sum = 0
  for (let i = 0; i < truth.length; i++) sum += Math.abs(truth[i]! - estimate[i]!)
  return sum / truth.length
}

/**
 * Mean per-channel error (0–255) of the estimate re-composited on a new plain colour against
 * the truth composited on it: what a viewer sees as fringe. `mask` limits it to some pixels
 * (e.g. the soft band of the truth).
 */
export function recompositeError(
  truth: KnownComposite,
  alpha: Buffer,
  foreground: Buffer,
  background: [number, number, number],
  mask?: (i: number) => boolean
): number {
  let sum = 0
  let count = 0
  for (let i = 0; i < truth.alpha.length; i++) {
    if (mask && !mask(i)) continue
    const at = truth.alpha[i]! / 255
    const ae = alpha[i]! / 255
    for (let c = 0; c < 3; c++) {
      const want = at * truth.fg[i * 3 + c]! + (1 - at) * background[c]!
      const got = ae * foreground[i * 4 + c]! + (1 - ae) * background[c]!
      sum += Math.abs(want - got)
    }
    count += 3
  }
  return sum / Math.max(1, count)
}
