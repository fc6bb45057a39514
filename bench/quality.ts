/**
 * `npm run bench:quality -- [--corpus <dir>] [--variant small|medium] [--limit N] [--mask-cache <dir>]
 *                          [--no-small] [--no-photos] [--no-solid] [--no-sizes] [--sizes-part fit|held-aside] [--only-sizes]`
 *
 * Cutout quality, printed as JSON (never asserted; figures are deterministic, times are not):
 * - composites: every reference cutout of the corpus (`<corpus>/../reference/*.png`, RGBA,
 *   except the same-weights `isnet-general-use` one) over each background family of
 *   `quality-scenes.ts`, plus one "small subject" scene per cutout; each through the model and
 *   the alpha step with `refine=none` and `edges` (the default) on the first look's mask
 *   (`look=off`), and `detail` (edges with the second look forced, `look=always`). Scores
 *   (`quality-metrics.ts`): alpha IoU, alpha SAD and gradient error in the soft band, foreground
 *   colour error in the soft band, halo on a contrasting colour. `summary.default_vs_none`
 *   checks the bar the default refinement has to clear. Beside them, the peers' foreground
 *   estimation on the same raw mask (`foreground-peers.ts`: blur fusion, multi-level), and
 *   `summary.peers` sets their halo and colour error beside ours.
 * - solid_subjects (`quality-solid.ts`): opaque subjects whose first mask is half transparent
 *   and truly see-through ones (smoke, veils, glass, hair), split into a fitting and a
 *   held-aside part, with and without the solid-subject step.
 * - photos: every corpus photo with `refine=none|edges|detail` against the same-weights
 *   reference (`isnet-general-use`: IoU, mean |Δα|) and against the strongest reference
 *   (`birefnet-massive`: agreement in its edge band), and the small-subject photos (car-1,
 *   girl-1) against their references.
 * - the forced second look's time: extra milliseconds per image (its model runs, as timed inside
 *   the session, plus crops and merge).
 * - sizes (`quality-sizes.ts`): subjects at a third, a sixth and a twelfth of the frame on busy
 *   photos and filling it on busy and soft ones, the first look alone against the default second
 *   look, per part (fit, held-aside) and family, with the model on the subject's true box.
 */
import { computeAlpha } from '../src/main/engine/pipeline/segment-and-refine'
import type { DecodedImage } from '../src/main/engine/pipeline/decode/decode'
import { corpusFiles, loadAverage, machine, options, round } from './lib'
import { contrastingColour, edgeBand, softBand, type Cutout, type Scores } from './quality-metrics'
import { score } from './quality-metrics'
import { blurFusion, multiLevel } from './foreground-peers'
import { comparePhotos } from './quality-photos'
import { solidFamilies } from './quality-solid'
import { qualityComposites, type Scene } from './quality-scenes'
import { openQualityRun, type CountingSource } from './quality-source'
import { sizeRows, summariseSizes } from './quality-sizes'

type Row = {
  scene: string
  family: string
  size: string
  small: boolean
  detail_ran: boolean
  detail_extra_ms: number | null
  scores: Record<string, Scores>
}

export async function main(args: string[]): Promise<number> {
  const opt = options(args)
  const { variant, limit, dir, refDir, loadStart, segmenter, source } = await openQualityRun(opt)
  try {
    const photos = corpusFiles(dir)
    const rows: Row[] = []
    const only = opt.has('only-sizes')
    if (!only)
      for await (const c of qualityComposites(refDir, photos, { limit, small: !opt.has('no-small') }))
        rows.push(await measure(c.scene, source, c.small))
    const photoRows = opt.has('no-photos') || only ? null : await comparePhotos(source, photos, refDir)
    const sizes = opt.has('no-sizes') ? null : await sizeRows(source, refDir, photos, limit, opt.get('sizes-part'))
    const solid = opt.has('no-solid') || only ? null : await solidFamilies(refDir, photos, limit)
    console.log(
      JSON.stringify(
        {
          bench: 'quality',
          corpus: dir,
          variant,
          machine: { ...machine(), load_average_start: loadStart, load_average_end: loadAverage() },
          summary: only ? null : summarise(rows),
          sizes: sizes && { summary: summariseSizes(sizes), composites: sizes },
          photos: photoRows,
          solid_subjects: solid,
          composites: rows
        },
        null,
        1
      )
    )
  } finally {
    await segmenter.close()
  }
  return 0
}

async function measure(scene: Scene, source: CountingSource, small: boolean): Promise<Row> {
  const image: DecodedImage = { data: scene.image, width: scene.width, height: scene.height, channels: 4, hasAlpha: false, warnings: [] }
  const soft = softBand(scene.alpha)
  const edge = edgeBand(scene.alpha, scene.width, scene.height)
  const contrast = contrastingColour(scene, edge)
  const scores: Record<string, Scores> = {}
  const put = (name: string, c: Cutout): void => {
    scores[name] = roundScores(score(scene, c, soft, edge, contrast))
  }
  const deps = { segmenter: source }
  const raw = await computeAlpha(image, scene.image, deps, { alpha: 'auto', refine: 'none', look: 'off' })
  put('none', raw)
  // The peers' colours on the same raw mask (their alpha is the model's, as they ship it).
  put('blur_fusion', { alpha: raw.alpha, foreground: blurFusion(image, raw.alpha) })
  put('multilevel', { alpha: raw.alpha, foreground: multiLevel(image, raw.alpha) })
  let t = performance.now()
  put('edges', await computeAlpha(image, scene.image, deps, { alpha: 'auto', refine: 'edges', look: 'off' }))
  const edgesMs = performance.now() - t
  source.reset()
  t = performance.now()
  put('detail', await computeAlpha(image, scene.image, deps, { alpha: 'auto', refine: 'detail' }))
  const detailMs = performance.now() - t
  // The detail run asks for the first mask again (from memory, as the edges run did) and then for
  // the second look's views: their model time counts even when it came from the cache.
  const views = source.calls.slice(1)
  const detailRan = views.length > 0
  const extra = detailRan ? round(detailMs - edgesMs + views.reduce((s, v) => s + (v.cached ? v.inferenceMs : 0), 0), 0) : null
  return {
    scene: scene.name,
    family: scene.family,
    size: `${scene.width}x${scene.height}`,
    small,
    detail_ran: detailRan,
    detail_extra_ms: extra,
    scores
  }
}

/** Halo and colour error of ours (`edges`) beside the peers' foreground estimation on the same raw mask. */
function peers(t: Record<string, Record<string, number>>): Record<string, unknown> {
  const pick = (m: string) => ({ halo: t[m]!.halo!, fg_error_band: t[m]!.fg_error_band! })
  const ahead = (m: string): boolean => t.edges!.halo! < t[m]!.halo! && t.edges!.fg_error_band! < t[m]!.fg_error_band!
  return {
    ours: pick('edges'),
    blur_fusion: pick('blur_fusion'),
    multilevel: pick('multilevel'),
    raw_mask: pick('none'),
    ours_ahead_of_blur_fusion: ahead('blur_fusion'),
    ours_ahead_of_multilevel: ahead('multilevel')
  }
}

function roundScores(s: Scores): Scores {
  return {
    iou: round(s.iou, 4),
    sad_band: round(s.sad_band, 2),
    sad_edge: round(s.sad_edge, 2),
    grad_band: round(s.grad_band, 3),
    fg_error_band: round(s.fg_error_band, 2),
    halo: round(s.halo, 2),
    scored_pixels: s.scored_pixels
  }
}

/** The bar the default refinement has to clear against `refine=none`. */
const BAR = { fgReductionPercent: 30, haloReductionPercent: 20, iouDrop: 0.002 }

function summarise(rows: Row[]): Record<string, unknown> {
  const methods = Object.keys(rows[0]?.scores ?? {})
  const keys = ['iou', 'sad_band', 'sad_edge', 'grad_band', 'fg_error_band', 'halo'] as const
  const mean = (rs: Row[], m: string, k: (typeof keys)[number]): number =>
    round(rs.reduce((s, r) => s + r.scores[m]![k], 0) / Math.max(1, rs.length), 4)
  const table = (rs: Row[]) =>
    Object.fromEntries(methods.map((m) => [m, Object.fromEntries(keys.map((k) => [k, mean(rs, m, k)]))])) as Record<
      string,
      Record<(typeof keys)[number], number>
    >
  const full = rows.filter((r) => !r.small)
  const small = rows.filter((r) => r.small)
  const label = (r: Row): string => `${r.scene} ${r.family}`
  const versus = (m: string, rs: Row[]) => {
    const a = table(rs)
    // A composite whose soft band has no pixel over 10 % under either method has no colour score.
    const scored = rs.filter((r) => r.scores[m]!.scored_pixels > 0 && r.scores.none!.scored_pixels > 0)
    const notLower = scored.filter((r) => r.scores[m]!.fg_error_band >= r.scores.none!.fg_error_band)
    const drops = rs.map((r) => ({ r, drop: r.scores.none!.iou - r.scores[m]!.iou }))
    const fgReduction = round((1 - a[m]!.fg_error_band / a.none!.fg_error_band) * 100, 1)
    const haloReduction = round((1 - a[m]!.halo / a.none!.halo) * 100, 1)
    const largestDrop = round(Math.max(...drops.map((d) => d.drop)), 4)
    return {
      composites: rs.length,
      fg_error_scored_on: scored.length,
      fg_error_not_scored: rs.filter((r) => !scored.includes(r)).map(label),
      fg_error_lower_on: scored.length - notLower.length,
      fg_error_not_lower: notLower.map((r) => `${label(r)}: ${r.scores.none!.fg_error_band} → ${r.scores[m]!.fg_error_band}`),
      fg_error_reduction_percent: fgReduction,
      halo_reduction_percent: haloReduction,
      largest_iou_drop: largestDrop,
      iou_drops_over_bar: drops.filter((d) => d.drop > BAR.iouDrop).map((d) => `${label(d.r)}: ${round(d.drop, 4)}`),
      worst_fg_error_ratio: round(
        Math.max(...scored.map((r) => r.scores[m]!.fg_error_band / Math.max(1e-9, r.scores.none!.fg_error_band))),
        3
      ),
      bar: {
        fg_error_lower_on_every_scored_composite: notLower.length === 0,
        [`fg_error_at_least_${BAR.fgReductionPercent}_percent_lower`]: fgReduction >= BAR.fgReductionPercent,
        [`halo_at_least_${BAR.haloReductionPercent}_percent_lower`]: haloReduction >= BAR.haloReductionPercent,
        [`iou_never_lower_by_more_than_${BAR.iouDrop}`]: largestDrop <= BAR.iouDrop
      }
    }
  }
  const ran = rows.filter((r) => r.detail_ran)
  const gain = (k: (typeof keys)[number], digits: number): number =>
    round(ran.reduce((s, r) => s + r.scores.detail![k] - r.scores.edges![k], 0) / Math.max(1, ran.length), digits)
  const byFamily = Object.fromEntries(
    [...new Set(rows.map((r) => (r.small ? 'small-subject' : r.family)))].map((f) => {
      const rs = rows.filter((r) => (r.small ? 'small-subject' : r.family) === f)
      const t = table(rs)
      return [f, { composites: rs.length, none: t.none, edges: t.edges }]
    })
  )
  return {
    composites: rows.length,
    default_vs_none: versus('edges', rows),
    detail: {
      ran_on: ran.length,
      small_scenes: small.length,
      // Against the default (`edges`), over the composites where the pass ran.
      iou_gain_where_ran: gain('iou', 4),
      edge_band_sad_change_where_ran: gain('sad_edge', 3),
      sad_band_change_where_ran: gain('sad_band', 3),
      halo_change_where_ran: gain('halo', 3),
      iou_lower_than_edges_on: ran
        .filter((r) => r.scores.detail!.iou < r.scores.edges!.iou - BAR.iouDrop)
        .map((r) => `${label(r)}: ${r.scores.edges!.iou} → ${r.scores.detail!.iou}`),
      extra_ms_per_image_where_ran: round(ran.reduce((s, r) => s + (r.detail_extra_ms ?? 0), 0) / Math.max(1, ran.length), 0)
    },
    detail_vs_none: versus('detail', rows),
    peers: peers(table(rows)),
    mean_all: table(rows),
    mean_full_frame: table(full),
    mean_small_subject: table(small),
    by_family: byFamily
  }
}
