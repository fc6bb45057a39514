/**
 * Local means of the colours the alpha already settles: around each pixel, the mean colour of
 * the known-subject pixels (α = 1) and of the known-background pixels (α = 0) within a window.
 *
 * The refine step unmixes each soft pixel with them: the background behind a soft edge is seen
 * right next to it, so taking its colour from there (instead of solving for it, as multilevel
 * foreground estimation does, or blending it from the whole neighbourhood, as blur fusion does)
 * is what measured best on the quality benchmark's composites (docs/pipeline.md).
 *
 * With each mean comes the spread of the colours it averages (their variance, summed over the
 * channels): where the known background is busy, its mean says little about the one colour
 * behind a given pixel, and the refine step trusts it less.
 *
 * Normalised box means (box(I·k)/box(k), k the indicator of the known region): O(1) per pixel
 * whatever the window, on the scratch arena.
 */
import { boxMean } from './box-filter'
import { scratchPlanes } from '../../scratch'

export interface RgbPixels {
  /** RGB or RGBA bytes, row-major. */
  data: Uint8Array
  width: number
  height: number
  channels: number
}

export interface KnownMeans {
  /** Interleaved RGB in [0, 1]: the local mean of the known-subject colours (the cell's own where the window holds none). */
  fg: Float32Array
  /** Interleaved RGB in [0, 1]: the same for the known background. */
  bg: Float32Array
  /** Per cell: variance of the known-subject colours in the window, summed over R, G, B; +∞ where it holds none (the mean is then only the cell's own colour). */
  fgVar: Float32Array
  /** The same for the known background. */
  bgVar: Float32Array
  /**
   * The known background again, over a smaller window (`nearRadius`): on a background with
   * structure (clutter, texture) the pixels right next to an edge say more about the colour
   * behind it than the wide window's mean. Variance +∞ where that window holds no known
   * background (use the wide one). Null when no `nearRadius` was asked for.
   */
  near: { bg: Float32Array; bgVar: Float32Array } | null
  /** The grid the planes are on: one cell per `step` × `step` image pixels (the last row and column of cells may be partial). */
  width: number
  height: number
  step: number
}

const INV255 = 1 / 255
/** A window whose known region covers less than this share of its pixels counts as holding none. */
const MIN_WEIGHT = 1e-5

/**
 * Means over a window of (2·radius + 1)² cells of `step` × `step` pixels, for `image` and
 * `alpha` (1 byte per pixel, same size). Each cell first sums its own pixels (count, colour and
 * squared colour of the known-subject and known-background pixels among them), so a coarse grid
 * still counts exactly the pixels the full-resolution alpha settles: no resized alpha blurs the
 * known regions, and the box means run on `step`² fewer cells. With `nearRadius`, the known
 * background is also averaged over that smaller window, from the same cell sums. The returned
 * planes live in the scratch arena: use them before the next await.
 */
export function knownMeans(image: RgbPixels, alpha: Uint8Array, radius: number, step = 1, nearRadius?: number): KnownMeans {
  const { width: w, height: h, channels: ch, data: img } = image
  if (img.length < w * h * ch || ch < 3 || alpha.length < w * h) throw new RangeError('knownMeans: image or alpha does not match the size')
  if (!Number.isInteger(step) || step < 1) throw new RangeError(`knownMeans: step must be a positive integer, got ${step}`)
  const width = Math.ceil(w / step)
  const height = Math.ceil(h / step)
  const n = width * height
  if (nearRadius !== undefined && (!Number.isInteger(nearRadius) || nearRadius < 1 || nearRadius >= radius)) {
    throw new RangeError(`knownMeans: nearRadius must be an integer from 1 to radius − 1, got ${nearRadius}`)
  }
  const planes = scratchPlanes(nearRadius === undefined ? 13 : 17, n)
  // Three-plane runs are contiguous in the arena: the interleaved colour sums, which the means
  // then replace in place.
  const rgb = (k: number): Float32Array => new Float32Array(planes[k]!.buffer, planes[k]!.byteOffset, n * 3)
  const fg = rgb(0)
  const bg = rgb(3)
  const [kb, kf, qb, qf, tmp, weight, channel] = planes.slice(6, 13) as [
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array
  ]
  const own = cellSums(img, ch, alpha, w, h, step, { kb, kf, qb, qf, fg, bg })
  const work = { tmp, weight, channel, own, width, height, minWeight: MIN_WEIGHT * step * step }
  // The near window first: it reads the cell sums that the wide windows then replace in place.
  const near =
    nearRadius === undefined
      ? null
      : windowStats({ count: kb, squares: qb, sums: bg }, { mean: rgb(13), variance: planes[16]! }, nearRadius, work)
  const bgStats = windowStats({ count: kb, squares: qb, sums: bg }, { mean: bg, variance: qb }, radius, work)
  const fgStats = windowStats({ count: kf, squares: qf, sums: fg }, { mean: fg, variance: qf }, radius, work)
  return {
    fg,
    bg,
    fgVar: fgStats.variance,
    bgVar: bgStats.variance,
    near: near && { bg: near.mean, bgVar: near.variance },
    width,
    height,
    step
  }
}

interface WindowWork {
  /** Three scratch planes. */
  tmp: Float32Array
  weight: Float32Array
  channel: Float32Array
  /** Each cell's own mean colour (interleaved): the mean where the window holds no known pixel. */
  own: Float32Array
  width: number
  height: number
  /** Weights are pixel counts per cell: a share of the window below MIN_WEIGHT is none. */
  minWeight: number
}

/**
 * Mean colour (interleaved) and colour variance (summed over R, G, B; +∞ where the window holds
 * no known pixel) of one known region over the window of `radius` cells, from its cell sums:
 * pixel `count`, sum of `squares` and interleaved colour `sums`. `out` may be the sums' own
 * planes (`mean` over `sums`, `variance` over `squares`): each channel is read before its mean
 * is written.
 */
function windowStats(
  cells: { count: Float32Array; squares: Float32Array; sums: Float32Array },
  out: { mean: Float32Array; variance: Float32Array },
  radius: number,
  work: WindowWork
): { mean: Float32Array; variance: Float32Array } {
  const { tmp, weight, channel, own, width, height, minWeight } = work
  const { mean, variance } = out
  const n = width * height
  boxMean(cells.count, width, height, radius, tmp, weight)
  // Mean |I|² first; the variance is that minus |mean|², taken per channel below.
  boxMean(cells.squares, width, height, radius, tmp, variance)
  for (let i = 0; i < n; i++) variance[i] = weight[i]! > minWeight ? variance[i]! / weight[i]! : Infinity
  for (let c = 0; c < 3; c++) {
    for (let i = 0, q = c; i < n; i++, q += 3) channel[i] = cells.sums[q]!
    boxMean(channel, width, height, radius, tmp, channel)
    for (let i = 0, q = c; i < n; i++, q += 3) {
      // Where the window holds none, the variance stays +∞ but the mean still takes part in the
      // bilinear sampling of its neighbours.
      const m = weight[i]! > minWeight ? channel[i]! / weight[i]! : own[q]!
      mean[q] = m
      variance[i] = variance[i]! - m * m
    }
  }
  // Float rounding can leave a tiny negative variance on a flat region.
  for (let i = 0; i < n; i++) if (variance[i]! < 0) variance[i] = 0
  return { mean, variance }
}

interface CellPlanes {
  kb: Float32Array
  kf: Float32Array
  qb: Float32Array
  qf: Float32Array
  /** Interleaved RGB sums. */
  fg: Float32Array
  bg: Float32Array
}

/**
 * Per cell: the number of known-background (α = 0) and known-subject (α = 255) pixels, the sums
 * of their colours and of their squared colours. Returns each cell's own mean colour (all its
 * pixels), the fallback where a window holds no known pixels.
 */
function cellSums(img: Uint8Array, ch: number, alpha: Uint8Array, w: number, h: number, step: number, p: CellPlanes): Float32Array {
  const { kb, kf, qb, qf, fg, bg } = p
  const gw = Math.ceil(w / step)
  const n = gw * Math.ceil(h / step)
  kb.fill(0, 0, n)
  kf.fill(0, 0, n)
  qb.fill(0, 0, n)
  qf.fill(0, 0, n)
  fg.fill(0, 0, 3 * n)
  bg.fill(0, 0, 3 * n)
  // Own means: a plain Float32Array, as small as the grid (every plane of the arena is taken).
  const own = new Float32Array(3 * n)
  // Each column's cell, once (not a division per pixel).
  const column = new Int32Array(w)
  for (let x = 0; x < w; x++) column[x] = Math.floor(x / step)
  for (let y = 0; y < h; y++) {
    const cellRow = Math.floor(y / step) * gw
    for (let x = 0, i = y * w, o = i * ch; x < w; x++, i++, o += ch) {
      const cell = cellRow + column[x]!
      const q = cell * 3
      const r = img[o]! * INV255
      const g = img[o + 1]! * INV255
      const b = img[o + 2]! * INV255
      own[q]! += r
      own[q + 1]! += g
      own[q + 2]! += b
      const a = alpha[i]!
      if (a === 0) {
        kb[cell]! += 1
        qb[cell]! += r * r + g * g + b * b
        bg[q]! += r
        bg[q + 1]! += g
        bg[q + 2]! += b
      } else if (a === 255) {
        kf[cell]! += 1
        qf[cell]! += r * r + g * g + b * b
        fg[q]! += r
        fg[q + 1]! += g
        fg[q + 2]! += b
      }
    }
  }
  if (step > 1) {
    const gh = Math.ceil(h / step)
    for (let cy = 0; cy < gh; cy++) {
      const rows = Math.min(step, h - cy * step)
      for (let cx = 0; cx < gw; cx++) {
        const inv = 1 / (rows * Math.min(step, w - cx * step))
        const q = (cy * gw + cx) * 3
        own[q]! *= inv
        own[q + 1]! *= inv
        own[q + 2]! *= inv
      }
    }
  }
  return own
}
