/**
 * The photo's word on a broad half-transparent region the mask alone would make opaque
 * (`solid.ts`, docs/pipeline.md "Solid subjects"). From the mask alone a veil hanging from a
 * figure looks exactly like a doubted dress: both are broad, half transparent and border the
 * confident core. The photo tells them apart. A see-through region is a mix α·F + (1 − α)·B of
 * its own colour and the background behind it, so the background's texture shows through,
 * damped by (1 − α): its local variation is about (1 − α) times that of the certain background
 * around it. A doubted solid region shows the subject's own surface instead: its variation is
 * the subject's (like the confident core next to it), not the background's damped.
 *
 * Texture is the covariance of the colour steps from each pixel to the pixels `STEP` to its
 * right and below, summed per cell of the analysis grid, over the deep cells of the region (away
 * from its outline, where the mask's edge and the subject's own outline would count), of the
 * certain background around it, and of the confident core around it. A region is see-through
 * when its texture's strength is the background's damped by (1 − α) (within `SHOWS_THROUGH`,
 * and closer to it than to the core's) and its colour shape (the covariance over its trace)
 * is closer to the background's than to the core's: a white dress's shading is as strong as a
 * busy background's grain seen through a veil, but it is grey where the background is not.
 */

import { within } from '../../segment/mask/regions'

/** The photo the mask was made from: RGBA, 8 bits per channel (the mask may be at the model's size). */
export interface Photo {
  data: Buffer
  width: number
  height: number
}

/** How far around a region its background and core are looked at, in multiples of the reach. */
const AROUND = 6
/**
 * Distance, in pixels, of the brightness steps texture is measured by: a background's grain
 * shows at a few pixels where neighbouring pixels of a smooth or upscaled photo differ by little.
 */
const STEP = 3
/** RMS colour step under which the background counts as flat: nothing can show through it. */
const FLAT = 1
/**
 * The region's texture over the damped background's (1 − α)·t_B, in log, within which it is
 * explained as see-through: the background's texture showing through. On the bench's fitting
 * part (bench/quality-solid.ts) veils on a figure measure 1.02–1.05, the doubted opaque
 * subjects 1.55 and more.
 */
const SHOWS_THROUGH = Math.log(1.25)

interface GridShape {
  gw: number
  gh: number
}

/**
 * Per grid cell, the sums of the products of each pixel's colour steps (R, G, B) to the pixels
 * `STEP` to its right and below (the six entries of their covariance: rr gg bb rg rb gb), and
 * the count. The mask (and so the grid) may be at the model's size rather than the photo's: a
 * pixel goes to the cell it covers in proportion.
 */
function cellTexture(photo: Photo, { gw, gh }: GridShape): { sums: Float64Array[]; count: Uint32Array } {
  const { data, width, height } = photo
  const sums = Array.from({ length: 6 }, () => new Float64Array(gw * gh))
  const count = new Uint32Array(gw * gh)
  const column = new Int32Array(width)
  for (let x = 0; x < width; x++) column[x] = Math.min(gw - 1, Math.floor((x * gw) / width))
  const add = (c: number, i: number, j: number): void => {
    const r = data[j * 4]! - data[i * 4]!
    const g = data[j * 4 + 1]! - data[i * 4 + 1]!
    const b = data[j * 4 + 2]! - data[i * 4 + 2]!
    sums[0]![c]! += r * r
    sums[1]![c]! += g * g
    sums[2]![c]! += b * b
    sums[3]![c]! += r * g
    sums[4]![c]! += r * b
    sums[5]![c]! += g * b
  }
  for (let y = 0; y < height - STEP; y++) {
    const row = Math.min(gh - 1, Math.floor((y * gh) / height)) * gw
    for (let x = 0, i = y * width; x < width - STEP; x++, i++) {
      const c = row + column[x]!
      add(c, i, i + STEP)
      add(c, i, i + STEP * width)
      count[c]! += 2
    }
  }
  return { sums, count }
}

export interface RegionCue {
  /** Mean alpha of the region's deep cells, 0–1. */
  alpha: number
  /** RMS colour step in the region, the background around it, the core around it. */
  region: number
  background: number
  core: number
  /** How far the region's texture's colour shape is from the background's, and from the core's. */
  shapeBackground: number
  shapeCore: number
  seeThrough: boolean
}

/**
 * For each half-transparent region in `candidates` (labels of `labels` on the grid), whether the
 * photo shows it see-through (see the file's comment). `g` is the mask on the grid, `bg` the
 * certain background's cells, `core` the main confident core's.
 */
export function seeThroughCues(
  photo: Photo,
  grid: GridShape & { g: Uint8Array },
  labels: Int32Array,
  candidates: readonly number[],
  bg: Uint8Array,
  core: Uint8Array,
  reach: number
): Map<number, RegionCue> {
  const cues = new Map<number, RegionCue>()
  if (candidates.length === 0) return cues
  const { gw, gh, g } = grid
  const n = gw * gh
  const tex = cellTexture(photo, grid)
  const edge = Math.max(1, reach >> 1)
  // Cells well inside the certain background and the core: their texture is theirs alone.
  const notBg = new Uint8Array(n)
  const notCore = new Uint8Array(n)
  for (let i = 0; i < n; i++) {
    notBg[i] = bg[i] ? 0 : 1
    notCore[i] = core[i] ? 0 : 1
  }
  const nearSubject = within(notBg, gw, gh, edge)
  const nearOutsideCore = within(notCore, gw, gh, edge)
  for (const label of candidates) {
    const inRegion = new Uint8Array(n)
    const outside = new Uint8Array(n)
    for (let i = 0; i < n; i++) {
      if (labels[i] === label) inRegion[i] = 1
      else outside[i] = 1
    }
    const outline = within(outside, gw, gh, edge)
    const around = within(inRegion, gw, gh, AROUND * reach)
    let a = 0
    const sums = [new Float64Array(6), new Float64Array(6), new Float64Array(6)]
    const counts = [0, 0, 0]
    let deep = 0
    for (let i = 0; i < n; i++) {
      const kind =
        inRegion[i] && !outline[i] ? 0 : around[i] && bg[i] && !nearSubject[i] ? 1 : around[i] && core[i] && !nearOutsideCore[i] ? 2 : -1
      if (kind < 0) continue
      for (let e = 0; e < 6; e++) sums[kind]![e]! += tex.sums[e]![i]!
      counts[kind]! += tex.count[i]!
      if (kind === 0) {
        a += g[i]!
        deep++
      }
    }
    if (deep === 0 || counts[1] === 0) continue
    const trace = (k: number): number => sums[k]![0]! + sums[k]![1]! + sums[k]![2]!
    const mean = (k: number): number => (counts[k] ? Math.sqrt(trace(k) / counts[k]!) : 0)
    // How far apart two textures' colour shapes are: their covariances, each divided by its trace.
    const shape = (k: number, m: number): number => {
      const tk = trace(k) || 1
      const tm = trace(m) || 1
      let d = 0
      for (let e = 0; e < 6; e++) d += (e < 3 ? 1 : 2) * (sums[k]![e]! / tk - sums[m]![e]! / tm) ** 2
      return Math.sqrt(d)
    }
    const alpha = a / deep / 255
    const region = mean(0)
    const background = mean(1)
    const coreTexture = counts[2] ? mean(2) : region
    const damped = (1 - alpha) * background
    const fromBg = Math.abs(Math.log((region + 0.5) / (damped + 0.5)))
    const fromCore = Math.abs(Math.log((region + 0.5) / (coreTexture + 0.5)))
    const shapeBackground = shape(0, 1)
    const shapeCore = counts[2] ? shape(0, 2) : 0
    // The background's grain, damped by the region's alpha, in the background's colours.
    const seeThrough = background >= FLAT && fromBg <= SHOWS_THROUGH && fromBg < fromCore && shapeBackground < shapeCore
    cues.set(label, { alpha, region, background, core: coreTexture, shapeBackground, shapeCore, seeThrough })
  }
  return cues
}
