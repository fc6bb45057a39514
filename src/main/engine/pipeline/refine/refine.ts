/**
 * The refine step (`refine=edges`, docs/pipeline.md): full-resolution edges from the model's mask.
 *
 * 1. Alpha: the model sees the photo at 1024², so its mask is blurred by the upscaling. A guided
 *    filter with the photo as guide (`guided-filter.ts`) snaps the soft band of the mask onto
 *    the photo's edges. Its coefficients are computed on a grid of at most `GUIDE_MAX_PIXELS`
 *    and applied at full resolution with the full-resolution photo ("fast guided filter"),
 *    and only in the band where the mask is neither 0 nor 1 (widened by the filter's reach):
 *    elsewhere the filter could only return the mask itself.
 *    The refined alpha is kept on the same side of 50 % as the model's mask (the filter may move
 *    an edge by a pixel, but it must not decide what is subject), at exactly 0 or 1 where the
 *    model's mask is certain (the filter only reshapes the model's own soft band), and a tail of 8 % and less is cut
 *    (the filter's faint veil over the background, which also keeps those pixels out of the
 *    known background).
 * 2. Colour: in the soft band a pixel mixes subject and old background. The background behind
 *    it is seen right next to it: the local means of the known-background colours B̄ and of the
 *    known-subject colours F̄ (`known-colours.ts`) correct the alpha where subject and
 *    background colours are clearly apart, and unmix each pixel, F = B̄ + (I − B̄)/α
 *    (`unmix.ts`), so the cutout on a new background shows no fringe of the old one. Images over
 *    `KNOWN_MAX_CELLS` take the means on cells of several pixels, sampled bilinearly.
 *
 * Both steps work only on the region around the model's soft band (`region.ts`), widened by
 * the reach of their windows: outside it the mask is certain and the result is the mask.
 *
 * Everything after the sharp resizes is synchronous typed-array code on scratch planes that are
 * reused from image to image (`scratch.ts`).
 */
import { boxMean } from './box-filter'
import { guidedCoefficients, type GuidedCoefficients, type U8Pixels } from './guided-filter'
import { knownMeans } from './known-colours'
import { bilinearColumns, resizeGrey, resizeRgb } from '../../segment/mask/resample'
import { cellsUnder, crop, grown, overlap, paste, widen, type Region } from '../../segment/mask/region'
import type { MaskPlane } from '../../segment/mask/types'
import { alphaBounds } from '../compose/placement'
import { boundToSide } from './side-bound'
import { scratchPlanes } from '../../scratch'
import type { RgbaImage } from '../compose/variation'
import { unmix } from './unmix'

/** Bounding box of the values strictly between `low` and `high` in a 1-byte plane, or null if there are none. */
export function softBounds(plane: Uint8Array, width: number, height: number, low: number, high: number): Region | null {
  return alphaBounds(plane, width, height, { threshold: low + 1, below: high })
}

/** The refine step reads the pixels only: any 8-bit RGBA image (`RgbaImage`), its channel count implied. */
export type RgbaInput = Omit<RgbaImage, 'channels'>

export interface RefineOptions {
  /** Guided filter radius in pixels of the model's 1024² grid. @default 9 */
  radius?: number
  /** Guided filter regularisation (colours in [0, 1]): larger is smoother. @default 1e-5 */
  eps?: number
  /** Largest grid the guided filter's coefficients are computed on. @default 512² */
  guideMaxPixels?: number
  /** Skip the foreground colour estimation (alpha only). @default false */
  alphaOnly?: boolean
  /** Work on the whole photo even where the soft band leaves most of it out (tests: the crop must change nothing). @default false */
  wholePhoto?: boolean
  /**
   * The only pixels whose result the caller reads (a stroke's neighbourhood, `applyHint`): the
   * work region is the soft band near them with its margin, so inside `within` every result is
   * what the whole photo gives (a mask with no soft band there comes out snapped to 0 and 255),
   * and outside it the result is not to be read (a refine with less context; farther away, 0,
   * the mask not even resampled there). The mask is read only within `refineReach` of the soft
   * band within `refineReach` of `within`.
   */
  within?: Region
}

export interface RefinedEdges {
  /** 1 channel, 8-bit, width × height. */
  alpha: Buffer
  /** RGBA: the subject's colours; the A channel is the input's. May be the input buffer itself. */
  foreground: Buffer
  /** Pixels whose colour was unmixed (the soft band and the transparent pixels next to it). */
  bandPixels: number
  /** The part of the photo that was worked on (the soft band and its margin); null for a hard mask. */
  region: Region | null
}

/**
 * Coefficients grid of the guided filter. The coefficients are box means, smooth by
 * construction, so a coarse grid loses little (He & Sun use 1/4 of the side); at most 512²
 * keeps the filter's cost (~15 ms) and memory bounded whatever the photo's size.
 */
const GUIDE_MAX_PIXELS = 512 * 512
/**
 * Most cells of the known-colour means. Each cell sums the exact pixels of `step`² the
 * full-resolution alpha settles (`known-colours.ts`), and the means are window means (radius 20
 * model pixels), smooth by construction: on bench:quality 0.2 MP of cells scores as 0.4 MP of
 * resized photo did (colour −31.5 %, halo −20.2 %, the same 69 of 71 composites lower; 0.1 MP
 * loses one), with a third of the planes and no resized copies of the photo and the alpha.
 */
const KNOWN_MAX_CELLS = 200_000
/** A work region over this share of the photo is not worth its copies: the whole photo is used. */
const CROP_WORTHWHILE = 0.85
/** Mask values at or below / at or above these are "certainly background / subject". */
const BAND_LOW = 2
const BAND_HIGH = 253
const INV255 = 1 / 255
/** Window radius of the known-colour means, in pixels of the model's 1024² grid. */
const KNOWN_RADIUS = 20
/**
 * Window radius of the near known-background mean, in pixels of the model's 1024² grid: on a
 * cluttered background the colour behind an edge is nearer the pixels right next to it
 * (bench:quality, docs/pipeline.md).
 */
const KNOWN_NEAR_RADIUS = 4
/** Refined alpha at or under this (8 % of 255) becomes 0: the filter's faint tail over the background. */
const TAIL = 20

export async function refineEdges(
  image: RgbaInput,
  mask: MaskPlane,
  opts: RefineOptions = {},
  signal?: AbortSignal
): Promise<RefinedEdges> {
  const { width, height } = image
  const n = width * height
  const eps = opts.eps ?? 1e-5

  // The guide grid: one cell per step × step full-res pixels, `step` the smallest integer that
  // brings it within the limit. Photo and mask are resampled onto it with the same filter
  // (a widened triangle) and the same cell geometry (with a partial last cell the grid spans a
  // little more than the photo): coefficients fitted between them then apply to the full-res
  // photo without a shift. (A box average for the photo measured 16 % worse alpha.)
  // `r`: the filter's radius on that grid, `radius` pixels of the 1024² model grid, scaled.
  // Known-colour means: cells of `knownStep`² pixels, a window of `radius` cells.
  const { step, r, knownStep, radius, margin } = windows(width, height, opts)
  const gw = Math.ceil(width / step)
  const gh = Math.ceil(height / step)
  // With `within`, the work region lies within twice the margin and a cell snap of it: only
  // the guide cells and the pixels there are resampled (each as the whole resize makes it).
  const reads = opts.within && grown(opts.within, 2 * margin + (knownStep + 2) * step, width, height)
  const guidePart = reads && cellsUnder(reads, step, step)
  const guideMask =
    step === 1
      ? await resizeMask(mask, gw, gh, guidePart)
      : resizeGrey(mask.data, mask.width, mask.height, gw, gh, (step * mask.width) / width, (step * mask.height) / height, guidePart)
  signal?.throwIfAborted()

  const anywhere = softBounds(guideMask, gw, gh, BAND_LOW, BAND_HIGH)
  // With `within`: the soft band that can reach it, else (none can, or there is none) a cell of
  // it, so that its pixels come out as the whole photo's would, the certain mask snapped to 0
  // and 255 — whatever the mask is farther away, which the caller may have left as it was.
  const near = opts.within && anywhere && overlap(anywhere, cellsUnder(grown(opts.within, margin, width, height), step, step))
  const soft = opts.within ? near || cellOf(opts.within, step, gw, gh) : anywhere
  if (!soft) {
    // A hard mask (no soft band anywhere): nothing to refine.
    return { alpha: await resizeMask(mask, width, height), foreground: image.data, bandPixels: 0, region: null }
  }
  const nearRadius = Math.min(radius - 1, Math.max(1, Math.round((KNOWN_NEAR_RADIUS * Math.max(width, height)) / knownStep / 1024)))
  // The work region: the soft band plus the reach of the guided filter (two box means and the
  // bilinear sampling of their result) and of the known-colour windows around the pixels it
  // unmixes, on cell boundaries of both grids. Within it every result is what the whole photo
  // would give; outside, the mask is certain.
  let region = widen(soft, step, margin, step * knownStep, width, height)
  // (With `within` the planes are made near it only: the region stays the part that is read.)
  if (opts.wholePhoto || (!reads && region.width * region.height > CROP_WORTHWHILE * n)) region = { x: 0, y: 0, width, height }
  const whole = region.width === width && region.height === height
  // With one pixel per cell the guide grid's mask is this same resize: used for both (read only).
  const sides = step === 1 ? guideMask : await resizeMask(mask, width, height, reads)
  signal?.throwIfAborted()

  const cw = region.width
  const ch = region.height
  const part: RgbaInput = whole ? image : { data: crop(image.data, width, 4, region), width: cw, height: ch }
  const partSides = whole ? sides : crop(sides, width, 1, region)
  const cgw = Math.ceil(cw / step)
  const cgh = Math.ceil(ch / step)
  const partMask = whole ? guideMask : crop(guideMask, gw, 1, { x: region.x / step, y: region.y / step, width: cgw, height: cgh })
  const guide: U8Pixels =
    step === 1
      ? { data: part.data, width: cw, height: ch, channels: 4 }
      : { data: resizeRgb(part.data, cw, ch, 4, cgw, cgh, step, step), width: cgw, height: cgh, channels: 3 }
  const band = bandOf(partMask, cgw, cgh, r)
  const coefficients = guidedCoefficients(guide, partMask, r, eps)
  const alpha = applyGuided(part, partMask, step, coefficients, band)
  keepSides(alpha, partSides)
  if (opts.alphaOnly)
    return { alpha: whole ? alpha : pasteInto(sides, width, region, alpha), foreground: image.data, bandPixels: 0, region }

  const foreground = clearTransparent(part.data, alpha)
  const means = knownMeans({ ...part, channels: 4 }, alpha, radius, knownStep, nearRadius)
  const bandPixels = unmix(foreground, alpha, partSides, cw, ch, means)
  if (whole) return { alpha, foreground, bandPixels, region }
  const fullAlpha = pasteInto(sides, width, region, alpha)
  const fullForeground = clearTransparent(image.data, fullAlpha)
  paste(fullForeground, width, 4, region, foreground)
  return { alpha: fullAlpha, foreground: fullForeground, bandPixels, region }
}

/**
 * The grids and windows of a width × height photo: the guide grid's cell (`step`) and the
 * guided filter's radius on it (`r`), the known-colour cells (`knownStep`) and their window
 * (`radius` cells), and `margin`, the reach in pixels of both around a pixel they change.
 */
function windows(
  width: number,
  height: number,
  opts: Pick<RefineOptions, 'radius' | 'guideMaxPixels'> = {}
): { step: number; r: number; knownStep: number; radius: number; margin: number } {
  const n = width * height
  const step = Math.max(1, Math.ceil(Math.sqrt(n / (opts.guideMaxPixels ?? GUIDE_MAX_PIXELS))))
  const r = Math.max(1, Math.round(((opts.radius ?? 9) * Math.max(Math.ceil(width / step), Math.ceil(height / step))) / 1024))
  const knownStep = Math.max(1, Math.ceil(Math.sqrt(n / KNOWN_MAX_CELLS)))
  const radius = Math.max(2, Math.round((KNOWN_RADIUS * Math.max(width, height)) / knownStep / 1024))
  return { step, r, knownStep, radius, margin: (2 * r + 2) * step + (radius + 2) * knownStep }
}

/** The guide-grid cell (of `step` pixels) at the top left of `within`, within the gw × gh grid. */
function cellOf(within: Region, step: number, gw: number, gh: number): Region {
  return {
    x: Math.min(gw - 1, Math.max(0, Math.floor(within.x / step))),
    y: Math.min(gh - 1, Math.max(0, Math.floor(within.y / step))),
    width: 1,
    height: 1
  }
}

/**
 * How far (pixels) a change of the mask can move the refined result of a width × height photo
 * with the default options: the work region's margin, and its snap to the cell grids. A stroke
 * changes nothing farther away.
 */
export function refineReach(width: number, height: number): number {
  const { margin, step, knownStep } = windows(width, height)
  return margin + step * knownStep
}

/**
 * The full-size alpha: the model's certain mask outside the region (snapped to 0 or 255, as
 * `keepSides` does inside), the refined alpha in it. A new buffer: `sides` may be the caller's
 * own mask.
 */
function pasteInto(sides: Buffer, width: number, region: Region, alpha: Buffer): Buffer {
  const out = Buffer.allocUnsafe(sides.length)
  for (let i = 0; i < sides.length; i++) out[i] = sides[i]! >= 128 ? 255 : 0
  paste(out, width, 1, region, alpha)
  return out
}

/**
 * A copy of the photo whose colours are zero where the alpha is 0: there they are never seen
 * (the refine then writes estimated colours on the soft band and the transparent pixels next to
 * it), and a clipping's PNG of the old background compresses to a fraction of the bytes.
 */
function clearTransparent(rgba: Buffer, alpha: Buffer): Buffer {
  const out = Buffer.from(rgba)
  for (let i = 0, o = 0; i < alpha.length; i++, o += 4) {
    if (alpha[i] === 0) {
      out[o] = 0
      out[o + 1] = 0
      out[o + 2] = 0
    }
  }
  return out
}

/** A mask plane at another size, or itself. */
export async function resizeMask(mask: MaskPlane, width: number, height: number, part?: Region): Promise<Buffer> {
  if (mask.width === width && mask.height === height) return mask.data
  return resizeGrey(mask.data, mask.width, mask.height, width, height, undefined, undefined, part)
}

/** Flags on the guide grid: 1 where the guided filter may change the mask. */
interface BandFlags {
  data: Uint8Array
  width: number
  height: number
  count: number
}

/**
 * Guide-grid pixels where the guided filter may change the mask: the soft band (values
 * strictly between BAND_LOW and BAND_HIGH) widened by 2r + 1, the reach of its two box means.
 * Outside, every window sees a constant mask, so the filter returns the mask unchanged.
 */
function bandOf(mask: Buffer, width: number, height: number, r: number): BandFlags {
  const n = width * height
  const [soft, tmp] = scratchPlanes(2, n) as [Float32Array, Float32Array]
  let any = false
  for (let i = 0; i < n; i++) {
    const v = mask[i]!
    const s = v > BAND_LOW && v < BAND_HIGH ? 1 : 0
    soft[i] = s
    if (s) any = true
  }
  const data = new Uint8Array(n)
  if (!any) return { data, width, height, count: 0 }
  boxMean(soft, width, height, 2 * r + 1, tmp, soft)
  let count = 0
  for (let i = 0; i < n; i++) {
    if (soft[i]! > 1e-7) {
      data[i] = 1
      count++
    }
  }
  return { data, width, height, count }
}

/**
 * Alpha at full resolution. In the band: q = a·I + b, with the coefficients sampled bilinearly
 * from the guide grid (cell = `step`² pixels) and I the full-resolution photo. Elsewhere the
 * mask is saturated within the filter's reach, so it is the grid's value, snapped to 0 or 255.
 */
function applyGuided(image: RgbaInput, gridMask: Buffer, step: number, c: GuidedCoefficients, band: BandFlags): Buffer {
  const { width, height, data: img } = image
  const out = Buffer.allocUnsafe(width * height)
  const gw = c.width
  const gh = c.height
  const inv = 1 / step
  const { ar, ag, ab, b } = c
  const cols = bilinearColumns(width, gw, inv)
  for (let y = 0; y < height; y++) {
    const gy = Math.min(gh - 1, Math.floor(y * inv))
    const fy = Math.min(gh - 1, Math.max(0, (y + 0.5) * inv - 0.5))
    const y0 = Math.floor(fy)
    const y1 = Math.min(gh - 1, y0 + 1)
    const wy = fy - y0
    const bandRow = gy * gw
    for (let x = 0; x < width; x++) {
      const gx = cols.cell[x]!
      const i = y * width + x
      if (band.data[bandRow + gx] === 0) {
        out[i] = gridMask[bandRow + gx]! >= BAND_HIGH ? 255 : 0
        continue
      }
      let kr: number
      let kg: number
      let kb: number
      let k0: number
      if (step === 1) {
        kr = ar[i]!
        kg = ag[i]!
        kb = ab[i]!
        k0 = b[i]!
      } else {
        const x0 = cols.x0[x]!
        const x1 = cols.x1[x]!
        const wx = cols.wx[x]!
        const i00 = y0 * gw + x0
        const i01 = y0 * gw + x1
        const i10 = y1 * gw + x0
        const i11 = y1 * gw + x1
        const w00 = (1 - wx) * (1 - wy)
        const w01 = wx * (1 - wy)
        const w10 = (1 - wx) * wy
        const w11 = wx * wy
        kr = ar[i00]! * w00 + ar[i01]! * w01 + ar[i10]! * w10 + ar[i11]! * w11
        kg = ag[i00]! * w00 + ag[i01]! * w01 + ag[i10]! * w10 + ag[i11]! * w11
        kb = ab[i00]! * w00 + ab[i01]! * w01 + ab[i10]! * w10 + ab[i11]! * w11
        k0 = b[i00]! * w00 + b[i01]! * w01 + b[i10]! * w10 + b[i11]! * w11
      }
      const o = i * 4
      const q = (kr * img[o]! + kg * img[o + 1]! + kb * img[o + 2]!) * INV255 + k0
      out[i] = q <= 0 ? 0 : q >= 1 ? 255 : Math.round(q * 255)
    }
  }
  return out
}

/**
 * The refined alpha on the model's side of 50 % wherever the two disagree (`sides`: the model's
 * mask at full size), exactly 0 or 1 where the model's mask is (≤ BAND_LOW, ≥ BAND_HIGH), and
 * the tail up to TAIL cut to 0.
 */
export function keepSides(alpha: Buffer, sides: Buffer): void {
  for (let i = 0; i < alpha.length; i++) {
    const q = alpha[i]!
    const p = sides[i]!
    // Where the model is certain, so is the result: the filter's window reaches past the model's
    // soft band, and on a plain background next to the subject (a hazy sky) it otherwise leaves
    // a faint blotchy veil, the more so the larger its radius.
    if (p <= BAND_LOW) alpha[i] = 0
    else if (p >= BAND_HIGH) alpha[i] = 255
    else {
      const b = boundToSide(q, p)
      alpha[i] = b <= TAIL ? 0 : b
    }
  }
}
