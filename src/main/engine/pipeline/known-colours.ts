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
import { scratchPlanes } from './scratch'

export interface RgbPixels {
  /** RGB or RGBA bytes, row-major. */
  data: Uint8Array
  width: number
  height: number
  channels: number
}

export interface KnownMeans {
  /** Interleaved RGB in [0, 1]: the local mean of the known-subject colours (the pixel's own where the window holds none). */
  fg: Float32Array
  /** Interleaved RGB in [0, 1]: the same for the known background. */
  bg: Float32Array
  /** Per pixel: variance of the known-subject colours in the window, summed over R, G, B; +∞ where it holds none (the mean is then only the pixel's own colour). */
  fgVar: Float32Array
  /** The same for the known background. */
  bgVar: Float32Array
}

const INV255 = 1 / 255
/** A window whose known region covers less than this share counts as holding none. */
const MIN_WEIGHT = 1e-5

/**
 * Means over a (2·radius + 1)² window for `image` and `alpha` (1 byte per pixel, same size). The
 * returned planes live in the scratch arena: use them before the next await.
 */
export function knownMeans(image: RgbPixels, alpha: Uint8Array, radius: number): KnownMeans {
  const { width, height, channels: ch, data: img } = image
  const n = width * height
  if (img.length < n * ch || ch < 3 || alpha.length < n) throw new RangeError('knownMeans: image or alpha does not match the size')
  const planes = scratchPlanes(17, n)
  const [kb, kf, tmp, sb, sf, wb, wf] = planes as [Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array]
  // Planes 7–9 and 10–12 are contiguous in the arena: the interleaved outputs.
  const fg = new Float32Array(planes[7]!.buffer, planes[7]!.byteOffset, n * 3)
  const bg = new Float32Array(planes[10]!.buffer, planes[10]!.byteOffset, n * 3)
  const [fgVar, bgVar, qf, qb] = planes.slice(13) as [Float32Array, Float32Array, Float32Array, Float32Array]
  for (let i = 0, o = 0; i < n; i++, o += ch) {
    const b = alpha[i] === 0 ? 1 : 0
    const f = alpha[i] === 255 ? 1 : 0
    kb[i] = b
    kf[i] = f
    const r = img[o]! * INV255
    const g = img[o + 1]! * INV255
    const bl = img[o + 2]! * INV255
    const sq = r * r + g * g + bl * bl
    qb[i] = b * sq
    qf[i] = f * sq
  }
  boxMean(kb, width, height, radius, tmp, wb)
  boxMean(kf, width, height, radius, tmp, wf)
  // Mean |I|² of each known region first; the variance is that minus |mean|², taken per channel below.
  boxMean(qb, width, height, radius, tmp, qb)
  boxMean(qf, width, height, radius, tmp, qf)
  for (let i = 0; i < n; i++) {
    bgVar[i] = wb[i]! > MIN_WEIGHT ? qb[i]! / wb[i]! : Infinity
    fgVar[i] = wf[i]! > MIN_WEIGHT ? qf[i]! / wf[i]! : Infinity
  }
  for (let c = 0; c < 3; c++) {
    for (let i = 0, o = c; i < n; i++, o += ch) {
      const v = img[o]! * INV255
      sb[i] = kb[i]! * v
      sf[i] = kf[i]! * v
    }
    boxMean(sb, width, height, radius, tmp, sb)
    boxMean(sf, width, height, radius, tmp, sf)
    for (let i = 0, o = c, q = c; i < n; i++, o += ch, q += 3) {
      const own = img[o]! * INV255
      if (wb[i]! > MIN_WEIGHT) {
        const m = sb[i]! / wb[i]!
        bg[q] = m
        bgVar[i] = bgVar[i]! - m * m
      } else bg[q] = own // (variance stays +∞)
      if (wf[i]! > MIN_WEIGHT) {
        const m = sf[i]! / wf[i]!
        fg[q] = m
        fgVar[i] = fgVar[i]! - m * m
      } else fg[q] = own
    }
  }
  // Float rounding can leave a tiny negative variance on a flat region.
  for (let i = 0; i < n; i++) {
    if (bgVar[i]! < 0) bgVar[i] = 0
    if (fgVar[i]! < 0) fgVar[i] = 0
  }
  return { fg, bg, fgVar, bgVar }
}
