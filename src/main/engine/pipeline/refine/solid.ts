/**
 * Solid subjects opaque, real transparency kept (docs/pipeline.md "Solid subjects").
 *
 * The model sometimes answers a solid subject with a broad half-transparent inside (a white
 * dress at 40 %, a shelf of pots at 20–80 %) or keeps a half-transparent ghost of something
 * behind the subject (a sign, a train). That is the model's doubt, not transparency: real
 * transparency at a subject's edge (hair, fur, a veil's hem) is a narrow band between the
 * subject and the background, and a truly see-through subject (smoke, glass) has no
 * confident core at all. So, on the model's mask, before the refine step (`workingMask` in
 * `segment-and-refine.ts`):
 *
 * 1. Trigger: the share of the subject's pixels that are half transparent (20–80 %) *and* far
 *    from any certain background (more than `BROAD_REACH` of the grid's long side). Hair and
 *    fur bands are narrow and never count; only a broad half-transparent inside does. Below
 *    `TRIGGER_SHARE` (or without a confident core) the mask is returned as it is, at the cost
 *    of one pass over a grid of at most 512².
 * 2. A trimap on that grid: the confident core (≥ 80 %, its large parts), the certain
 *    background (≤ 8 %), and the half-transparent regions between. A broad half-transparent
 *    region that borders the core along a good part of its outline belongs to the subject; one
 *    that touches it only at a seam or not at all (a ghost behind the figure, a sign beside it)
 *    is background, and goes to 0 with the small confident parts that border it. Narrow
 *    half-transparent regions are left as they are, and so is one that borders the core where the
 *    photo shows the background through it (a veil hanging from a figure, `see-through.ts`): from
 *    the mask alone it looks exactly like a doubted dress.
 * 3. Inside the subject the mask is divided by the subject's own confidence around each pixel
 *    (the local maximum of the mask): where the model says 40 % across a whole dress, 40 % is its
 *    "opaque". Along the edge of a half-transparent inside the ramp is made steeper (its width is
 *    the model's blur), and cells deeper than the reach from the certain background are opaque.
 *    Next to a confident core the level is 1, so hair there keeps the model's values.
 *
 * The refine step then decides the band between the new certain subject and background from the
 * photo (guided filter, colours of the known subject and background around each edge pixel), and
 * unmixes the colours there as for any edge.
 */
import { labelRegions } from '../../segment/mask/regions'
import type { MaskPlane } from '../../segment/mask/types'
import { blur, distanceTo, maxWithin, sample } from './solid-grid'
import { type Photo, seeThroughCues } from './see-through'

/** Long side of the analysis grid (cells of several pixels on larger photos). */
const GRID_MAX_SIDE = 512
/** Alpha at or under this (8 %) is certain background. */
const LOW = 20
/** Half transparent: 20 % to 80 %. */
const MID_LOW = 51
const CORE = 204
/**
 * How far from the certain background a half-transparent pixel must lie to count as the
 * subject's inside, as a share of the grid's long side (6 cells at 512): wider than a hair
 * band at the model's resolution.
 */
const BROAD_REACH = 0.012
/**
 * Share of the subject's pixels (over 8 %) that must be broad half-transparent inside to act.
 * On the corpus's model masks the photos the model gets right measure 0–2.7 % (fur and hair
 * included), the three with a half-transparent inside 11–28 %.
 */
export const TRIGGER_SHARE = 0.05
/** The confident core must be at least this share of the subject's pixels for the step to act. */
const MIN_CORE = 0.1
/** Confident parts smaller than this share of the largest stand apart from the subject. */
const SMALL_CORE = 0.1
/**
 * A half-transparent region is the subject's when at least this share of its outline borders the
 * core. On the corpus's model masks: anime-girl-3's dress 0.49–0.56, plants-1's shelf and pots
 * 0.29–0.96, the ghost train behind anime-girl-2 0.12, the sign beside her 0.
 */
const CONTACT_SHARE = 0.2
/** A small confident part stands apart when at least this share of its outline borders a half-transparent region that does. */
const APART_SHARE = 0.3
/** Slope of the edge of a half-transparent inside made opaque: its middle third becomes 0–100 %. */
const STEEPER = 3

export interface SolidAnalysis {
  /** Share of the subject's pixels that are broad half-transparent inside (the trigger). */
  broadShare: number
  triggered: boolean
}

interface Grid {
  g: Uint8Array
  gw: number
  gh: number
  step: number
}

/** The alpha averaged over cells of step² pixels, the grid's long side at most `GRID_MAX_SIDE`. */
function toGrid(alpha: Uint8Array, width: number, height: number): Grid {
  const step = Math.max(1, Math.ceil(Math.max(width, height) / GRID_MAX_SIDE))
  const gw = Math.ceil(width / step)
  const gh = Math.ceil(height / step)
  if (step === 1) return { g: alpha.subarray(0, width * height), gw, gh, step }
  const sum = new Float64Array(gw * gh)
  const count = new Uint32Array(gw * gh)
  for (let y = 0; y < height; y++) {
    const row = ((y / step) | 0) * gw
    for (let x = 0, i = y * width; x < width; x++, i++) {
      const c = row + ((x / step) | 0)
      sum[c]! += alpha[i]!
      count[c]!++
    }
  }
  const g = new Uint8Array(gw * gh)
  for (let c = 0; c < g.length; c++) g[c] = Math.round(sum[c]! / count[c]!)
  return { g, gw, gh, step }
}

function reachOf(gw: number, gh: number): number {
  return Math.max(2, Math.round(BROAD_REACH * Math.max(gw, gh)))
}

function analyse(grid: Grid): SolidAnalysis & { dist: Float32Array; reach: number } {
  const { g, gw, gh } = grid
  const bg = new Uint8Array(gw * gh)
  for (let i = 0; i < bg.length; i++) bg[i] = g[i]! <= LOW ? 1 : 0
  const dist = distanceTo(bg, gw, gh)
  const reach = reachOf(gw, gh)
  let subject = 0
  let broad = 0
  let core = 0
  for (let i = 0; i < g.length; i++) {
    const v = g[i]!
    if (v <= LOW) continue
    subject++
    if (v >= CORE) core++
    else if (v >= MID_LOW && dist[i]! > reach) broad++
  }
  const broadShare = subject === 0 ? 0 : broad / subject
  // Without a confident core (smoke, a glass, a veil alone) the half-transparency is the subject's own.
  const triggered = broadShare >= TRIGGER_SHARE && core >= MIN_CORE * subject
  return { broadShare, triggered, dist, reach }
}

/** Whether the step would act on this alpha, and the measure it decides by (tests, benchmark). */
export function solidAnalysis(alpha: Uint8Array, width: number, height: number): SolidAnalysis {
  const { broadShare, triggered } = analyse(toGrid(alpha, width, height))
  return { broadShare, triggered }
}

/**
 * The trimap's decision on the grid: 1 where a cell belongs to the subject, 2 where it is a
 * half-transparent or small confident part standing apart (background), 0 elsewhere; null when
 * every broad half-transparent region is left as it is (the photo shows each see-through), so
 * there is nothing to decide.
 */
function subjectCells(grid: Grid, photo: Photo, dist: Float32Array, reach: number): Uint8Array | null {
  const { g, gw, gh } = grid
  const n = gw * gh
  const isCore = new Uint8Array(n)
  const isSoft = new Uint8Array(n)
  for (let i = 0; i < n; i++) {
    if (g[i]! >= CORE) isCore[i] = 1
    else if (g[i]! > LOW) isSoft[i] = 1
  }
  const core = labelRegions(isCore, gw, gh)
  const largest = Math.max(0, ...core.sizes)
  const mainCore = new Uint8Array(n)
  for (let i = 0; i < n; i++) if (core.labels[i] && core.sizes[core.labels[i]!]! >= SMALL_CORE * largest) mainCore[i] = 1
  // Each half-transparent region: its outline (cells next to a cell outside it) and how much of
  // that outline borders the main core.
  const soft = labelRegions(isSoft, gw, gh)
  const { outline, contact } = borders(
    soft,
    gw,
    gh,
    () => true,
    (j) => mainCore[j] === 1
  )
  const broad = new Float64Array(soft.sizes.length)
  for (let i = 0; i < n; i++) if (soft.labels[i] && g[i]! >= MID_LOW && dist[i]! > reach) broad[soft.labels[i]!]!++
  // A narrow band (hair, a fin's fringe, an edge) has no inside: left as the refine made it.
  const decided = new Int8Array(soft.sizes.length)
  const bordering: number[] = []
  for (let label = 1; label < soft.sizes.length; label++) {
    if (broad[label]! < reach * reach) continue
    decided[label] = contact[label]! >= CONTACT_SHARE * Math.max(1, outline[label]!) ? 1 : 2
    if (decided[label] === 1) bordering.push(label)
  }
  // One that borders the core is a doubted solid part unless the photo shows the background
  // through it (a veil hanging from a figure, `see-through.ts`): then it is left as it is.
  const bg = new Uint8Array(n)
  for (let i = 0; i < n; i++) bg[i] = g[i]! <= LOW ? 1 : 0
  const cues = seeThroughCues(photo, grid, soft.labels, bordering, bg, mainCore, reach)
  for (const [label, cue] of cues) if (cue.seeThrough) decided[label] = 0
  // A region too narrow for the photo to be read (no cue: no cell away from its outline, a pocket
  // between a figure's limbs under its veil) takes the word of those it could read: when each of
  // them is see-through, so is it. Where one reads solid (a doubted dress), the pockets go with it.
  if (cues.size > 0 && [...cues.values()].every((cue) => cue.seeThrough)) for (const label of bordering) decided[label] = 0
  if (!decided.some((d) => d !== 0)) return null
  const out = new Uint8Array(n)
  for (let i = 0; i < n; i++) {
    if (mainCore[i]) out[i] = 1
    else if (soft.labels[i]) out[i] = decided[soft.labels[i]!]!
  }
  // Small confident parts (a fish beside the figure, a fleck inside a ghost): the subject's
  // unless a good part of their outline borders a half-transparent region that stands apart.
  const { outline: smallOutline, contact: smallApart } = borders(
    core,
    gw,
    gh,
    (i) => !mainCore[i],
    (j) => out[j] === 2
  )
  for (let i = 0; i < n; i++) {
    const label = core.labels[i]!
    if (!label || mainCore[i]) continue
    out[i] = smallApart[label]! >= APART_SHARE * Math.max(1, smallOutline[label]!) ? 2 : 1
  }
  return out
}

/**
 * The step on the model's mask: the same plane where it has no broad half-transparent inside,
 * else a new one (see the file's comment). Applying it to its own result changes nothing.
 */
export function solidMask(mask: MaskPlane, photo: Photo): MaskPlane {
  const { width, height } = mask
  const grid = toGrid(mask.data, width, height)
  const { triggered, dist, reach } = analyse(grid)
  if (!triggered) return mask
  const { g, gw, gh, step } = grid
  const n = gw * gh
  const cells = subjectCells(grid, photo, dist, reach)
  if (!cells) return mask
  const kept = new Uint8Array(n)
  for (let i = 0; i < n; i++) kept[i] = cells[i] === 1 ? 1 : 0
  // The subject's own confidence around each cell; 1 (no stretch) outside it.
  const localMax = maxWithin(g, kept, gw, gh, 2 * reach)
  const level = new Float32Array(n)
  const inside = new Float32Array(n)
  const apart = new Float32Array(n)
  const firm = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    level[i] = kept[i] ? Math.max(MID_LOW, localMax[i]!) / 255 : 1
    inside[i] = kept[i] && g[i]! >= MID_LOW && dist[i]! > reach ? 1 : 0
    apart[i] = cells[i] === 2 ? 1 : 0
    firm[i] = kept[i] && g[i]! < CORE ? 1 : 0
  }
  const opaque = blur(inside, gw, gh, 1)
  const firmer = blur(firm, gw, gh, reach)

  const data = Buffer.from(mask.data)
  for (let y = 0; y < height; y++)
    for (let x = 0, i = y * width; x < width; x++, i++) {
      const before = mask.data[i]!
      if (before === 0) continue
      const a = before / 255
      const drop = sample(apart, gw, gh, step, x, y)
      const stretched = Math.min(1, a / sample(level, gw, gh, step, x, y))
      // The edge of a half-transparent inside is the model's blur, not a soft edge: steeper there.
      const k = sample(firmer, gw, gh, step, x, y)
      const edge = k > 0 ? stretched + k * (Math.min(1, Math.max(0, (stretched - 0.5) * STEEPER + 0.5)) - stretched) : stretched
      const deep = sample(opaque, gw, gh, step, x, y) * Math.min(1, before / LOW)
      data[i] = Math.round(Math.max(edge, deep) * (1 - drop) * 255)
    }
  return { data, width, height }
}

/**
 * For each region of `regions` (its cells where `within`): how many of its cells lie on its
 * outline (beside a cell of another region or none), and how many beside a cell where `touching`.
 */
function borders(
  regions: { labels: Int32Array; sizes: number[] },
  gw: number,
  gh: number,
  within: (i: number) => boolean,
  touching: (j: number) => boolean
): { outline: Float64Array; contact: Float64Array } {
  const outline = new Float64Array(regions.sizes.length)
  const contact = new Float64Array(regions.sizes.length)
  for (let y = 0; y < gh; y++)
    for (let x = 0; x < gw; x++) {
      const i = y * gw + x
      const label = regions.labels[i]!
      if (!label || !within(i)) continue
      let edge = false
      let touches = false
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx
          const yy = y + dy
          if (xx < 0 || yy < 0 || xx >= gw || yy >= gh) continue
          const j = yy * gw + xx
          if (regions.labels[j] !== label) edge = true
          if (touching(j)) touches = true
        }
      if (edge) outline[label]!++
      if (touches) contact[label]!++
    }
  return { outline, contact }
}
