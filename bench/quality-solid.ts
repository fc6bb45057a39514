/**
 * Both sides of the "solid subjects opaque" step (`refine/solid.ts`, docs/pipeline.md) on
 * composites with a known alpha, for `bench:quality`:
 *
 * - opaque: each reference cutout of the corpus (an illustration, a plant, a person, a car…)
 *   over a cluttered background, with the first mask the model gives a solid subject it doubts:
 *   the truth, sure in the top third of the subject's box and fading to 40 % below it (as the
 *   model leaves a white dress or a shelf of pots), blurred as an upscaled model mask is.
 * - see-through: subjects whose alpha is partial in truth, made in code: smoke (soft blobs up
 *   to 65 %), a veil (40 % with folds and a soft hem), a tinted glass (25 % with an 85 % rim),
 *   hair (the references' soft edges: each reference cutout's hair or fur band as it is, its broad
 *   half-transparent inside made opaque, `softEdgesOnly`), and a veil on a figure (that subject
 *   with a 40 % sheet hanging from its lower half, as wide as the subject and a third more), each
 *   with the truth blurred as its first mask (a model that sees it right). The last is the case the step cannot tell from a
 *   doubted solid subject by the mask alone; it reads the photo for it (`refine/see-through.ts`,
 *   docs/pipeline.md "Solid subjects"), and it is scored apart (`held_aside.veil_on_figure`).
 *
 * No model runs: the masks are made here, so the figures are the step's alone. Each family is
 * split by subject into a fitting part (even places) and a held-aside part (odd places): the
 * step's thresholds were chosen on the corpus photos and the fitting part; the held-aside part
 * scores them. Rows: "today" is the refine step on the first mask, "solid" the refine step on
 * it after the solid step (what `refine=edges` runs: `workingMask`), each scored with `quality-metrics.ts` plus the alpha MSE
 * over the whole frame.
 */
import { refined } from '../src/main/engine/pipeline/segment-and-refine'
import type { MaskSource } from '../src/main/engine/segment/mask/types'
import type { DecodedImage } from '../src/main/engine/pipeline/decode/decode'
import { solidAnalysis, solidMask } from '../src/main/engine/pipeline/refine/solid'
import { distanceTo } from '../src/main/engine/pipeline/refine/solid-grid'
import { labelRegions } from '../src/main/engine/segment/mask/regions'
import { round } from './lib'
import { contrastingColour, edgeBand, score, softBand } from './quality-metrics'
import { background, composite, loadCutout, referenceCutouts, subjectBox, type Rgba, type Scene } from './quality-scenes'

type Side = 'opaque' | 'see-through'

interface SolidRow {
  scene: string
  family: string
  side: Side
  part: 'fitting' | 'held-aside'
  /** Whether the step acted (its trigger). */
  acted: boolean
  today: Record<string, number>
  solid: Record<string, number>
}

/** Generated see-through subjects per shape (each its own seed and placement). */
const SHAPES_EACH = 4
const SHAPE_SIZE = { width: 640, height: 480 }

export async function solidFamilies(refDir: string, photos: string[], limit?: number): Promise<Record<string, unknown>> {
  const rows: SolidRow[] = []
  const refs = referenceCutouts(refDir, photos, limit)
  for (const ref of refs) {
    const cut = await loadCutout(ref.file)
    const part = ref.index % 2 === 0 ? 'fitting' : 'held-aside'
    const edges = softEdgesOnly(cut)
    const bg = await background('noise', cut.width, cut.height, cut, ref.other, 300 + ref.index)
    const opaque = composite(ref.name, 'opaque', edges, bg)
    rows.push(await measure(opaque, doubtedMask(edges), 'opaque', part))
    const hair = composite(ref.name, 'see-through/hair', edges, await background('blurred-photo', cut.width, cut.height, cut, ref.other, 0))
    rows.push(await measure(hair, blurred(hair.alpha, hair.width, hair.height), 'see-through', part))
    const veiled = withVeil(edges)
    const onFigure = composite(
      ref.name,
      'see-through/veil-on-figure',
      veiled,
      await background('noise', cut.width, cut.height, cut, ref.other, 700 + ref.index)
    )
    rows.push(await measure(onFigure, blurred(onFigure.alpha, onFigure.width, onFigure.height), 'see-through', part))
  }
  for (const shape of ['smoke', 'veil', 'glass'] as const)
    for (let k = 0; k < SHAPES_EACH; k++) {
      const cut = seeThrough(shape, k)
      const bg = await background('noise', cut.width, cut.height, cut, refs[0]?.other ?? '', 500 + k)
      const scene = composite(`${shape}-${k}`, `see-through/${shape}`, cut, bg)
      rows.push(
        await measure(scene, blurred(scene.alpha, scene.width, scene.height), 'see-through', k % 2 === 0 ? 'fitting' : 'held-aside')
      )
    }
  return { summary: summarise(rows), composites: rows }
}

/** A mask source that gives `mask` at the image's size (no model). */
function fixedMask(mask: Buffer): MaskSource {
  return { segment: async () => mask }
}

async function measure(scene: Scene, first: Buffer, side: Side, part: SolidRow['part']): Promise<SolidRow> {
  const image: DecodedImage = { data: scene.image, width: scene.width, height: scene.height, channels: 4, hasAlpha: false, warnings: [] }
  const soft = softBand(scene.alpha)
  const edge = edgeBand(scene.alpha, scene.width, scene.height)
  const contrast = contrastingColour(scene, edge)
  const plane = { data: first, width: scene.width, height: scene.height }
  const deps = { segmenter: fixedMask(first) }
  const today = await refined(image, plane, deps, { refine: 'edges' })
  const solid = await refined(image, solidMask(plane, image), deps, { refine: 'edges' })
  const scored = (c: { alpha: Buffer; foreground: Buffer }): Record<string, number> => {
    const s = score(scene, c, soft, edge, contrast)
    return {
      iou: round(s.iou, 4),
      sad_band: round(s.sad_band, 2),
      mse_x1000: round(mse(scene.alpha, c.alpha) * 1000, 3),
      fg_error_band: round(s.fg_error_band, 2),
      halo: round(s.halo, 2),
      half_transparent_share: round(midShare(c.alpha), 4)
    }
  }
  return {
    scene: scene.name,
    family: scene.family,
    side,
    part,
    acted: solidAnalysis(first, scene.width, scene.height).triggered,
    today: scored(today),
    solid: scored(solid)
  }
}

function mse(truth: Buffer, alpha: Buffer): number {
  let s = 0
  for (let i = 0; i < truth.length; i++) {
    const d = (truth[i]! - alpha[i]!) / 255
    s += d * d
  }
  return s / truth.length
}

/** Of the pixels above 8 %, the share between 20 % and 80 %. */
function midShare(alpha: Buffer): number {
  let above = 0
  let mid = 0
  for (const v of alpha) {
    if (v <= 20) continue
    above++
    if (v >= 51 && v <= 204) mid++
  }
  return above === 0 ? 0 : mid / above
}

/** The truth, sure in the top third of the subject's box and fading to 40 % over the next third (the model's doubt), blurred. */
function doubtedMask(cut: Rgba): Buffer {
  const { y0, height: bh } = subjectBox(cut)
  const m = Buffer.alloc(cut.width * cut.height)
  for (let y = 0; y < cut.height; y++) {
    const t = Math.min(1, Math.max(0, ((y - y0) / bh - 1 / 3) * 3))
    const doubt = 1 - 0.6 * t
    for (let x = 0; x < cut.width; x++) m[y * cut.width + x] = Math.round(cut.data[(y * cut.width + x) * 4 + 3]! * doubt)
  }
  return blurred(m, cut.width, cut.height)
}

/** A 5 × 5 box blur: the softness of a mask upscaled from the model's 1024². */
function blurred(alpha: Buffer, w: number, h: number, r = 2): Buffer {
  const tmp = new Float32Array(w * h)
  const out = Buffer.alloc(w * h)
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let s = 0
      let c = 0
      for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++, c++) s += alpha[y * w + xx]!
      tmp[y * w + x] = s / c
    }
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let s = 0
      let c = 0
      for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++, c++) s += tmp[yy * w + x]!
      out[y * w + x] = Math.round(s / c)
    }
  return out
}

/**
 * A soft edge lies between the subject's confident part (≥ 80 %) and the background it lets
 * through (≤ 8 %), within this share of the cutout's long side of both: twice the solid step's
 * reach, so a hair band as broad as the step's own "broad" still scores it.
 */
const SOFT_EDGE = 0.025

/**
 * The reference cutout as a subject that is opaque but for truly soft edges: its hair or fur band
 * as the reference has it, and every other partial pixel made opaque over a second `SOFT_EDGE`
 * (a broad half-transparent inside, a half-transparent part within the outline that no
 * background shows through, a part standing apart from the confident subject). The corpus's
 * references hold such parts where their own model doubted (u2net leaves anime-girl-3's dress
 * and goldfish at 20–60 %, the very answer the solid step exists to fix); they are no truth of
 * transparency. The references are stored premultiplied (rembg's cutouts), so the colours are
 * divided by alpha first: a part made opaque shows the photo's colour, not a darkened one.
 */
export function softEdgesOnly(cut: Rgba): Rgba {
  const { width, height } = cut
  const n = width * height
  const bg = new Uint8Array(n)
  const core = new Uint8Array(n)
  const partial = new Uint8Array(n)
  for (let i = 0; i < n; i++) {
    const a = cut.data[i * 4 + 3]!
    bg[i] = a <= 20 ? 1 : 0
    core[i] = a >= 204 ? 1 : 0
    partial[i] = a > 20 && a < 204 ? 1 : 0
  }
  // Partial regions the background shows through: those that border it.
  const { labels, sizes } = labelRegions(partial, width, height)
  const open = new Uint8Array(sizes.length)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const l = labels[y * width + x]!
      if (!l || open[l]) continue
      if (
        (x > 0 && bg[y * width + x - 1]) ||
        (x < width - 1 && bg[y * width + x + 1]) ||
        (y > 0 && bg[(y - 1) * width + x]) ||
        (y < height - 1 && bg[(y + 1) * width + x])
      )
        open[l] = 1
    }
  const fromBg = distanceTo(bg, width, height)
  const fromCore = distanceTo(core, width, height)
  const w = SOFT_EDGE * Math.max(width, height)
  const data = Buffer.from(cut.data)
  for (let i = 0; i < n; i++) {
    const a = cut.data[i * 4 + 3]!
    if (a === 0) continue
    for (let c = 0; c < 3; c++) data[i * 4 + c] = Math.min(255, Math.round((cut.data[i * 4 + c]! * 255) / a))
    if (!partial[i]) continue
    const far = open[labels[i]!] ? Math.max(fromBg[i]!, fromCore[i]!) - w : w
    data[i * 4 + 3] = Math.round(a + (255 - a) * Math.min(1, Math.max(0, far / w)))
  }
  return { data, width, height }
}

/** The cutout with a 40 % white veil over its lower half, a third wider than the subject each way (over: α = αs + αv(1 − αs)). */
function withVeil(cut: Rgba): Rgba {
  const { x0, y0, width: bw, height: bh } = subjectBox(cut)
  const data = Buffer.from(cut.data)
  const left = x0 - bw / 3
  const right = x0 + bw + bw / 3
  const top = y0 + bh / 2
  for (let y = 0; y < cut.height; y++)
    for (let x = 0; x < cut.width; x++) {
      if (x < left || x > right || y < top) continue
      const i = (y * cut.width + x) * 4
      const as = data[i + 3]! / 255
      const av = 0.4 * (1 - as)
      const a = as + av
      for (let c = 0; c < 3; c++) data[i + c] = Math.round((as * data[i + c]! + av * 245) / a)
      data[i + 3] = Math.round(a * 255)
    }
  return { data, width: cut.width, height: cut.height }
}

/** A see-through subject made in code (RGBA with its true alpha), seeded by `k`. */
function seeThrough(shape: 'smoke' | 'veil' | 'glass', k: number): Rgba {
  const { width, height } = SHAPE_SIZE
  const data = Buffer.alloc(width * height * 4)
  const cx = width * (0.4 + 0.05 * k)
  const cy = height * (0.5 - 0.03 * k)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      let a = 0
      let rgb: [number, number, number] = [230, 230, 235]
      if (shape === 'smoke') {
        for (let b = 0; b < 3; b++) {
          const bx = cx + (b - 1) * 70 + 10 * k
          const by = cy - b * 50
          const s = 60 + 15 * b
          a += (0.45 - 0.05 * b) * Math.exp(-((x - bx) ** 2 + (y - by) ** 2) / (2 * s * s))
        }
        a = Math.min(0.65, a)
        rgb = [200 + 10 * k, 205, 210]
      } else if (shape === 'veil') {
        // A rounded sheet with folds, its hem softening over 8 px.
        const dx = Math.abs(x - cx) - 150
        const dy = Math.abs(y - cy) - 120
        const outside = Math.hypot(Math.max(0, dx), Math.max(0, dy)) + Math.min(0, Math.max(dx, dy))
        const cover = Math.min(1, Math.max(0, 0.5 - outside / 8))
        a = cover * (0.4 + 0.1 * Math.sin((x + 7 * k) / 11))
        rgb = [245, 240, 250]
      } else {
        const r = Math.hypot((x - cx) / 1.3, y - cy)
        const R = 130 + 10 * k
        a = r < R - 6 ? 0.25 : r < R ? 0.85 : r < R + 1 ? 0.85 * (R + 1 - r) : 0
        rgb = [120, 200, 190]
      }
      const i = (y * width + x) * 4
      data[i] = rgb[0]
      data[i + 1] = rgb[1]
      data[i + 2] = rgb[2]
      data[i + 3] = Math.round(a * 255)
    }
  return { data, width, height }
}

function summarise(rows: SolidRow[]): Record<string, unknown> {
  const keys = ['iou', 'sad_band', 'mse_x1000', 'fg_error_band', 'halo', 'half_transparent_share'] as const
  const mean = (rs: SolidRow[], side: 'today' | 'solid') =>
    Object.fromEntries(keys.map((k) => [k, round(rs.reduce((s, r) => s + r[side][k]!, 0) / Math.max(1, rs.length), 4)]))
  const group = (rs: SolidRow[]) => ({
    composites: rs.length,
    acted_on: rs.filter((r) => r.acted).length,
    today: mean(rs, 'today'),
    solid: mean(rs, 'solid')
  })
  const out: Record<string, unknown> = {}
  for (const family of [...new Set(rows.map((r) => r.family))])
    for (const part of ['fitting', 'held-aside'] as const)
      out[`${family} ${part}`] = group(rows.filter((r) => r.family === family && r.part === part))
  const held = rows.filter((r) => r.part === 'held-aside')
  const onFigure = (r: SolidRow): boolean => r.family === 'see-through/veil-on-figure'
  const seeThroughHeld = held.filter((r) => r.side === 'see-through' && !onFigure(r))
  const notWorse = (rs: SolidRow[]): boolean =>
    rs.every((r) => r.solid.sad_band! <= r.today.sad_band! + 0.01 && r.solid.mse_x1000! <= r.today.mse_x1000! + 0.001)
  return {
    by_family: out,
    held_aside: {
      opaque: group(held.filter((r) => r.side === 'opaque')),
      see_through: group(seeThroughHeld),
      see_through_alpha_error_not_worse: notWorse(seeThroughHeld),
      veil_on_figure: group(held.filter(onFigure)),
      veil_on_figure_alpha_error_not_worse: notWorse(held.filter(onFigure))
    }
  }
}
