/**
 * `npm run bench:review -- [--corpus <dir>] [--variant small|medium] [--limit N] [--mask-cache <dir>] [--rows]`
 *
 * How well the uncertainty score (`src/main/engine/pipeline/uncertainty.ts`) tells bad cutouts
 * from good ones, printed as JSON (scores are deterministic, times are not):
 * - composites: bench:quality's (`quality-scenes.ts`: every reference cutout over four
 *   background families and a small-subject scene) and hard cases (`review-scenes.ts`: tiny
 *   subjects, busy backgrounds, subjects cut by the frame, no subject at all), each through the
 *   model and the alpha step with `refine=edges` (the default);
 * - per composite: the cutout's alpha IoU at 50 % against the true alpha, the score and its
 *   features. A composite with no subject has no true foreground: its IoU is 0 when the cutout
 *   keeps more than EMPTY_KEPT of the frame, else 1;
 * - ROC AUC of the score for IoU < BAD against IoU ≥ GOOD (the composites between are left out),
 *   with the count of each class; the same AUC out of fold (the model refitted without each
 *   reference cutout's composites in turn, and those scored); Spearman's rank correlation of the
 *   score with 1 − IoU over all composites, per set (bench:quality's, hard) and per family; the
 *   threshold for "to check" with its precision and recall; the weights refitted on every
 *   composite, beside the shipped ones; each candidate feature's out-of-fold AUC
 *   (`review-features.ts`), alone and added to the score's terms;
 * - the score's cost per image (milliseconds, its own call on the alpha step's planes).
 * `--rows` adds every composite's figures.
 */
import { computeAlpha } from '../src/main/engine/pipeline/alpha'
import type { DecodedImage } from '../src/main/engine/pipeline/decode'
import { MODEL_SIZE } from '../src/main/engine/pipeline/mask'
import { MODEL, TO_CHECK, uncertainty } from '../src/main/engine/pipeline/uncertainty'
import { corpusFiles, loadAverage, machine, median, options, round } from './lib'
import { iou } from './quality-metrics'
import { qualityComposites, type Scene } from './quality-scenes'
import { openQualityRun, type CountingSource } from './quality-source'
import { CANDIDATE_TERMS, candidateFeatures, SCORE_TERMS, type CandidateFeatures, type CandidateTerm } from './review-features'
import { hardComposites } from './review-scenes'
import { auc, fitLogistic, flagging, groupedOutOfFold, spearman } from './review-stats'

/** IoU below this: a cutout to check; at or above GOOD: a good one. */
const BAD = 0.9
const GOOD = 0.95
/** A composite with no subject: a cutout keeping more than this share of the frame is wrong. */
const EMPTY_KEPT = 0.01
/** The L2 penalty of the fit (on standardised terms). */
const LAMBDA = 1

interface Row {
  scene: string
  family: string
  /** The reference cutout (cross-validation folds), or `empty`. */
  group: string
  size: string
  iou: number
  score: number
  ms: number
  features: CandidateFeatures
}

export async function main(args: string[]): Promise<number> {
  const opt = options(args)
  const { variant, limit, dir, refDir, loadStart, segmenter, source } = await openQualityRun(opt)
  try {
    const photos = corpusFiles(dir)
    const rows: Row[] = []
    for await (const c of qualityComposites(refDir, photos, { limit, small: true })) rows.push(await measure(c.scene, `quality/${c.small ? 'small' : c.scene.family}`, source, false))
    for await (const c of hardComposites(refDir, photos, limit)) rows.push(await measure(c.scene, c.kind === 'busy' ? c.scene.family : c.kind, source, c.kind === 'empty'))
    const out = { bench: 'review', corpus: dir, variant, machine: { ...machine(), load_average_start: loadStart, load_average_end: loadAverage() }, ...summarise(rows) }
    console.log(JSON.stringify(opt.has('rows') ? { ...out, rows: rows.map(roundRow) } : out, null, 1))
  } finally {
    await segmenter.close()
  }
  return 0
}

async function measure(scene: Scene, family: string, source: CountingSource, empty: boolean): Promise<Row> {
  const image: DecodedImage = { data: scene.image, width: scene.width, height: scene.height, channels: 4, hasAlpha: false, warnings: [] }
  const result = await computeAlpha(image, scene.image, { segmenter: source }, { alpha: 'auto', refine: 'edges' })
  const run = await source.segmentAtModelSize(image) // from memory: the alpha step's own mask
  const model = { data: run.mask, width: run.width ?? MODEL_SIZE, height: run.height ?? MODEL_SIZE }
  const alpha = { data: result.alpha, width: scene.width, height: scene.height }
  // The score's cost: the same call the alpha step made, timed on its own.
  const t = performance.now()
  const again = uncertainty(model, alpha)
  const ms = performance.now() - t
  if (again !== result.uncertainty) throw new Error(`${scene.name} ${family}: the score is not deterministic (${again} vs ${result.uncertainty})`)
  let kept = 0
  for (const a of result.alpha) if (a >= 128) kept++
  const truth = empty ? (kept > EMPTY_KEPT * scene.width * scene.height ? 0 : 1) : iou(scene.alpha, result.alpha)
  return { scene: scene.name, family, group: empty ? 'empty' : scene.name, size: `${scene.width}x${scene.height}`, iou: truth, score: result.uncertainty, ms, features: candidateFeatures(model, alpha) }
}

function roundRow(r: Row): Row {
  const features = Object.fromEntries(Object.entries(r.features).map(([k, v]) => [k, round(v, 4)])) as unknown as CandidateFeatures
  return { ...r, iou: round(r.iou, 4), score: round(r.score, 4), ms: round(r.ms, 2), features }
}

const isBad = (r: Row): boolean => r.iou < BAD
const isGood = (r: Row): boolean => r.iou >= GOOD
const aucOf = (rows: Row[], scores: number[]): number =>
  auc(
    rows.flatMap((r, i) => (isBad(r) ? [scores[i]!] : [])),
    rows.flatMap((r, i) => (isGood(r) ? [scores[i]!] : []))
  )

/**
 * Out-of-fold scores of a logistic model on `terms`: refitted without each reference cutout's
 * composites in turn (the no-subject ones are one more fold), on the composites with a kept
 * region and a class; a composite that keeps nothing scores TO_CHECK, as the shipped score does.
 */
function outOfFold(rows: Row[], terms: CandidateTerm[]): number[] {
  const x = rows.map((r) => terms.map((t) => CANDIDATE_TERMS[t](r.features)))
  const y = rows.map((r) => (r.features.foreground === 0 ? null : isBad(r) ? 1 : isGood(r) ? 0 : null))
  const oof = groupedOutOfFold(
    x,
    y,
    rows.map((r) => r.group),
    LAMBDA
  )
  return rows.map((r, i) => (r.features.foreground === 0 ? TO_CHECK : oof[i]!))
}

function summarise(rows: Row[]): Record<string, unknown> {
  const bad = rows.filter(isBad)
  const good = rows.filter(isGood)
  const empty = rows.filter((r) => r.features.foreground === 0)
  const scores = rows.map((r) => r.score)
  const fitted = rows.filter((r) => r.features.foreground > 0 && (isBad(r) || isGood(r)))
  const refit = fitLogistic(
    fitted.map((r) => SCORE_TERMS.map((t) => CANDIDATE_TERMS[t](r.features))),
    fitted.map((r) => (isBad(r) ? 1 : 0)),
    LAMBDA
  )
  const byFamily = Object.fromEntries(
    [...new Set(rows.map((r) => r.family))].map((f) => {
      const rs = rows.filter((r) => r.family === f)
      const sc = rs.map((r) => r.score)
      return [
        f,
        {
          composites: rs.length,
          iou_below_0_9: rs.filter(isBad).length,
          iou_0_95_up: rs.filter(isGood).length,
          mean_iou: round(rs.reduce((s, r) => s + r.iou, 0) / rs.length, 4),
          mean_score: round(sc.reduce((s, v) => s + v, 0) / rs.length, 4),
          to_check: rs.filter((r) => r.score >= TO_CHECK).length,
          spearman: round(
            spearman(
              sc,
              rs.map((r) => 1 - r.iou)
            ),
            3
          ),
          auc: round(aucOf(rs, sc), 3)
        }
      ]
    })
  )
  const candidates = Object.fromEntries(
    (Object.keys(CANDIDATE_TERMS) as CandidateTerm[]).map((t) => [
      t,
      {
        auc_alone_out_of_fold: round(aucOf(rows, outOfFold(rows, [t])), 4),
        auc_with_score_terms_out_of_fold: SCORE_TERMS.includes(t) ? null : round(aucOf(rows, outOfFold(rows, [...SCORE_TERMS, t])), 4)
      }
    ])
  )
  const bad01 = rows.map(isBad)
  const check = (t: number) => {
    const f = flagging(scores, bad01, t)
    const g = flagging(
      scores,
      rows.map((r) => r.iou < GOOD),
      t
    )
    const goodFlagged = rows.filter((r, i) => isGood(r) && scores[i]! >= t).length
    return {
      threshold: t,
      flagged: f.flagged,
      precision_iou_below_0_9: round(f.precision, 3),
      recall_iou_below_0_9: round(f.recall, 3),
      precision_iou_below_0_95: round(g.precision, 3),
      iou_0_95_up_flagged: `${goodFlagged} of ${good.length}`
    }
  }
  const ms = rows.map((r) => r.ms)
  return {
    composites: rows.length,
    classes: { iou_below_0_9: bad.length, iou_0_95_up: good.length, between: rows.length - bad.length - good.length },
    keeping_nothing: { composites: empty.length, iou_below_0_9: empty.filter(isBad).length, iou_0_95_up: empty.filter(isGood).length },
    auc: round(aucOf(rows, scores), 4),
    // What the rule for a cutout that keeps nothing (scored TO_CHECK) costs the AUC: the same with them at 0.
    auc_with_empty_cutouts_at_0: round(
      aucOf(
        rows,
        rows.map((r) => (r.features.foreground === 0 ? 0 : r.score))
      ),
      4
    ),
    auc_out_of_fold: { value: round(aucOf(rows, outOfFold(rows, SCORE_TERMS)), 4), folds: new Set(rows.map((r) => r.group)).size, by: 'reference cutout; the no-subject composites one more fold' },
    spearman_all: round(
      spearman(
        scores,
        rows.map((r) => 1 - r.iou)
      ),
      4
    ),
    by_set: Object.fromEntries(
      (['quality', 'hard'] as const).map((set) => {
        const rs = rows.filter((r) => r.family.startsWith('quality/') === (set === 'quality'))
        const sc = rs.map((r) => r.score)
        const sp = spearman(
          sc,
          rs.map((r) => 1 - r.iou)
        )
        return [set, { composites: rs.length, iou_below_0_9: rs.filter(isBad).length, iou_0_95_up: rs.filter(isGood).length, auc: round(aucOf(rs, sc), 4), spearman: round(sp, 4) }]
      })
    ),
    by_family: byFamily,
    to_check: { shipped: check(TO_CHECK), recommended: check(recommend(scores, bad01)) },
    model: {
      terms: SCORE_TERMS,
      shipped: { bias: MODEL.bias, weights: [MODEL.entropy, MODEL.roughness] },
      refitted_on_all: { bias: round(refit.bias, 3), weights: refit.weights.map((w) => round(w, 3)) },
      lambda: LAMBDA,
      fitted_on: fitted.length
    },
    candidates,
    cost_ms: { mean: round(ms.reduce((s, v) => s + v, 0) / ms.length, 2), median: round(median(ms), 2), max: round(Math.max(...ms), 2) }
  }
}

/**
 * The threshold for "to check": the highest on a 0.05 grid that still flags RECALL of the
 * cutouts with IoU < BAD, so a person looks at as few good ones as that allows.
 */
const RECALL = 0.9
function recommend(scores: number[], bad: boolean[]): number {
  let best = 0
  for (let k = 1; k < 20; k++) if (flagging(scores, bad, k / 20).recall >= RECALL) best = k / 20
  return best
}
