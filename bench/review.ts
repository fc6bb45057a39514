/**
 * `npm run bench:review -- [--corpus <dir>] [--variant small|medium] [--limit N] [--draws N] [--mask-cache <dir>] [--rows] [--from-rows <file>]`
 *
 * How well the uncertainty score (`src/main/engine/segment/mask/uncertainty.ts`) and its review
 * levels (`src/shared/review.ts`) tell bad cutouts from good ones, printed as JSON (scores are
 * deterministic, times are not):
 * - composites (`review-scenes.ts`): every corpus subject at every size over plain and busy
 *   backgrounds, seen through, in pairs, and backgrounds with no subject, in two parts: **fit**
 *   and **held-aside** (whole subjects held aside with a fixed seed); each through the model and
 *   the alpha step with `refine=edges` (the default);
 * - per composite: the cutout's alpha IoU at 50 % against the true alpha, the score and its
 *   features. A composite with no subject has no true foreground: its IoU is 0 when the cutout
 *   keeps more than EMPTY_KEPT of the frame, else 1;
 * - `held_aside` and `fit`: the share of the cutouts with IoU < BAD that get a level (the catch
 *   rate) and of those with IoU ≥ GOOD that get one (the false-flag rate) at the shipped levels,
 *   ROC AUC and Spearman's rank correlation of the score; on the fitting part the AUC out of fold
 *   too (refitted without each subject in turn);
 * - `recommended`: the levels the fitting part alone gives, with the shipped weights and with the
 *   weights refitted on it, and what each does on the held-aside part; each candidate feature's
 *   out-of-fold AUC on the fitting part (`review-features.ts`), alone and added to the score's terms;
 * - the score's cost per image (milliseconds, its own call on the alpha step's planes).
 * `--rows` adds every composite's figures; `--from-rows <file>` summarises the rows of such an
 * earlier output again (with this build's levels) instead of running anything.
 */
import { readFileSync } from 'node:fs'
import { computeAlpha } from '../src/main/engine/pipeline/segment-and-refine'
import type { DecodedImage } from '../src/main/engine/pipeline/decode/decode'
import { MODEL_SIZE } from '../src/main/engine/segment/mask/mask'
import { MODEL, uncertainty, uncertaintyScore } from '../src/main/engine/segment/mask/uncertainty'
import { LIKELY_WRONG, reviewLevel, WORTH_A_LOOK } from '../src/shared/review'
import { corpusFiles, loadAverage, machine, median, options, positiveInt, round } from './lib'
import { iou } from './quality-metrics'
import type { Scene } from './quality-scenes'
import { openQualityRun, type CountingSource } from './quality-source'
import { CANDIDATE_TERMS, candidateFeatures, SCORE_TERMS, type CandidateFeatures, type CandidateTerm } from './review-features'
import { DRAWS, HELD_ASIDE, reviewComposites, reviewSubjects, SECOND_SUBJECT, SPLIT_SEED, type Part } from './review-scenes'
import { auc, fitLogistic, flagging, groupedOutOfFold, predict, spearman } from './review-stats'

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
  /** The corpus photo whose subject it shows (cross-validation folds), or `empty`. */
  group: string
  part: Part
  size: string
  iou: number
  score: number
  ms: number
  features: CandidateFeatures
}

export async function main(args: string[]): Promise<number> {
  const opt = options(args)
  const earlier = opt.get('from-rows')
  if (earlier) {
    // The figures again from an earlier run's rows (its `--rows` output): no model, no composites,
    // so levels can be compared in seconds. Its scores are the ones that run's weights gave.
    // Rows with every feature of this build's score are scored again with its weights.
    const run = JSON.parse(readFileSync(earlier, 'utf8')) as {
      corpus: string
      variant: string
      machine: unknown
      split: unknown
      rows: Row[]
    }
    const rows = run.rows.map((r) => (typeof r.features.pieceRoughness === 'number' ? { ...r, score: uncertaintyScore(r.features) } : r))
    const out = {
      bench: 'review',
      from_rows: earlier,
      corpus: run.corpus,
      variant: run.variant,
      machine: run.machine,
      split: run.split,
      ...summarise(rows)
    }
    console.log(JSON.stringify(opt.has('rows') ? { ...out, rows } : out, null, 1))
    return 0
  }
  const draws = positiveInt(opt.get('draws'), DRAWS, '--draws')
  const { variant, limit, dir, refDir, loadStart, segmenter, source } = await openQualityRun(opt)
  try {
    const photos = corpusFiles(dir)
    const rows: Row[] = []
    for await (const c of reviewComposites(refDir, photos, limit, draws)) {
      rows.push({ ...(await measure(c.scene, c.kind, source, c.group === 'empty')), group: c.group, part: c.part })
      // Progress on stderr (stdout is the JSON): a run without the mask cache takes a while.
      process.stderr.write(
        `${rows.length} ${c.part} ${c.scene.name} ${c.kind} IoU ${round(rows.at(-1)!.iou, 3)} score ${round(rows.at(-1)!.score, 3)}\n`
      )
    }
    const split = {
      seed: SPLIT_SEED,
      by: 'subject: the first held-aside-count subjects of a seeded shuffle, with every composite they appear in; the no-subject composites alternate',
      held_aside_count: HELD_ASIDE,
      draws,
      held_aside_subjects: reviewSubjects(refDir, photos, limit)
        .filter((s) => s.part === 'held-aside')
        .map((s) => s.group)
    }
    const out = {
      bench: 'review',
      corpus: dir,
      variant,
      machine: { ...machine(), load_average_start: loadStart, load_average_end: loadAverage() },
      split,
      ...summarise(rows)
    }
    console.log(JSON.stringify(opt.has('rows') ? { ...out, rows: rows.map(roundRow) } : out, null, 1))
  } finally {
    await segmenter.close()
  }
  return 0
}

async function measure(scene: Scene, family: string, source: CountingSource, empty: boolean): Promise<Omit<Row, 'group' | 'part'>> {
  const image: DecodedImage = { data: scene.image, width: scene.width, height: scene.height, channels: 4, hasAlpha: false, warnings: [] }
  const result = await computeAlpha(image, scene.image, { segmenter: source }, { alpha: 'auto', refine: 'edges' })
  const run = await source.segmentAtModelSize(image) // from memory: the alpha step's own mask
  const model = { data: run.mask, width: run.width ?? MODEL_SIZE, height: run.height ?? MODEL_SIZE }
  const alpha = { data: result.alpha, width: scene.width, height: scene.height }
  // The score's cost: the same call the alpha step made, timed on its own.
  const t = performance.now()
  const again = uncertainty(model, alpha)
  const ms = performance.now() - t
  if (again !== result.uncertainty)
    throw new Error(`${scene.name} ${family}: the score is not deterministic (${again} vs ${result.uncertainty})`)
  let kept = 0
  for (const a of result.alpha) if (a >= 128) kept++
  const truth = empty ? (kept > EMPTY_KEPT * scene.width * scene.height ? 0 : 1) : iou(scene.alpha, result.alpha)
  return {
    scene: scene.name,
    family,
    size: `${scene.width}x${scene.height}`,
    iou: truth,
    score: result.uncertainty,
    ms,
    features: candidateFeatures(model, alpha, { data: scene.image, width: scene.width, height: scene.height, channels: 4 })
  }
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

/** A composite that keeps nothing gets WORTH_A_LOOK whatever the weights, as the shipped score gives it. */
const emptyOr = (r: Row, score: number): number => (r.features.foreground === 0 ? WORTH_A_LOOK : score)

/**
 * Out-of-fold scores of a logistic model on `terms`: refitted without each subject's composites in
 * turn (the no-subject ones are one more fold), on the composites with a kept region and a class.
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
  return rows.map((r, i) => emptyOr(r, oof[i]!))
}

const share = (n: number, of: number): number => (of === 0 ? NaN : round(n / of, 3))

/** What the levels at `worth` and `wrong` do on `rows` scored `scores`. */
function levelFigures(rows: Row[], scores: number[], worth: number, wrong: number): Record<string, unknown> {
  const bad = rows.map((r, i) => [r, scores[i]!] as const).filter(([r]) => isBad(r))
  const good = rows.map((r, i) => [r, scores[i]!] as const).filter(([r]) => isGood(r))
  const at = (list: ReadonlyArray<readonly [Row, number]>, t: number): number => list.filter(([, s]) => s >= t).length
  const count = (lo: number, hi: number): number => scores.filter((s) => s >= lo && s < hi).length
  const classOf = (lo: number, hi: number, test: (r: Row) => boolean): number =>
    rows.filter((r, i) => test(r) && scores[i]! >= lo && scores[i]! < hi).length
  return {
    composites: rows.length,
    iou_below_0_9: bad.length,
    iou_0_95_up: good.length,
    catch_rate: share(at(bad, worth), bad.length),
    false_flag_rate: share(at(good, worth), good.length),
    flagged: at(
      rows.map((r, i) => [r, scores[i]!] as const),
      worth
    ),
    likely_wrong: {
      cutouts: count(wrong, Infinity),
      iou_below_0_9: classOf(wrong, Infinity, isBad),
      iou_0_95_up: classOf(wrong, Infinity, isGood),
      catch_rate: share(at(bad, wrong), bad.length),
      false_flag_rate: share(at(good, wrong), good.length)
    },
    worth_a_look: { cutouts: count(worth, wrong), iou_below_0_9: classOf(worth, wrong, isBad), iou_0_95_up: classOf(worth, wrong, isGood) },
    missed: bad.filter(([, s]) => s < worth).map(([r, s]) => `${r.scene} ${r.family}: IoU ${round(r.iou, 3)}, score ${round(s, 3)}`),
    good_flagged: good.filter(([, s]) => s >= worth).map(([r, s]) => `${r.scene} ${r.family}: IoU ${round(r.iou, 3)}, score ${round(s, 3)}`)
  }
}

/**
 * The levels the fitting part gives. A flag that marks most photos tells a designer nothing, so
 * the false flags are bounded first: "Worth a look" is the lowest score on a 0.01 grid at which
 * at most FALSE_FLAGS of the fitting part's good cutouts (IoU ≥ GOOD) get a level — it catches
 * as many bad ones as that allows; "Likely wrong" the lowest above it at which at least PRECISION
 * of the cutouts at that level have IoU < BAD. On the composites with a subject: a cutout that
 * keeps nothing scores WORTH_A_LOOK whatever the line, so the no-subject frames cannot inform it.
 */
const FALSE_FLAGS = 0.2
const PRECISION = 0.95
function recommend(rows: Row[], scores: number[]): { worth_a_look: number; likely_wrong: number } {
  const bad = rows.map(isBad)
  const good = rows.map(isGood)
  let worth = 0.99
  for (let k = 99; k >= 1; k--) if (flagging(scores, good, k / 100).recall <= FALSE_FLAGS) worth = k / 100
  let wrong = 0.99
  for (let k = 99; k > Math.round(worth * 100); k--) {
    const f = flagging(scores, bad, k / 100)
    if (f.flagged > 0 && f.precision >= PRECISION) wrong = k / 100
  }
  return { worth_a_look: worth, likely_wrong: wrong }
}

function summarise(allRows: Row[]): Record<string, unknown> {
  // The second-subject scene's truth is one of two subjects: it is in no class, no fit and no
  // rate, and is said apart (`second_subject`, `by_kind`).
  const rows = allRows.filter((r) => r.family !== SECOND_SUBJECT)
  const fit = rows.filter((r) => r.part === 'fit')
  const aside = rows.filter((r) => r.part === 'held-aside')
  const scoresOf = (rs: Row[]): number[] => rs.map((r) => r.score)
  const trained = fit.filter((r) => r.features.foreground > 0 && (isBad(r) || isGood(r)))
  const refit = fitLogistic(
    trained.map((r) => SCORE_TERMS.map((t) => CANDIDATE_TERMS[t](r.features))),
    trained.map((r) => (isBad(r) ? 1 : 0)),
    LAMBDA
  )
  const refitScores = (rs: Row[]): number[] =>
    rs.map((r) =>
      emptyOr(
        r,
        predict(
          refit,
          SCORE_TERMS.map((t) => CANDIDATE_TERMS[t](r.features))
        )
      )
    )
  const subject = (rs: Row[]): Row[] => rs.filter((r) => r.group !== 'empty')
  const recommended = recommend(subject(fit), scoresOf(subject(fit)))
  const recommendedRefit = recommend(subject(fit), refitScores(subject(fit)))
  const byKind = Object.fromEntries(
    [...new Set(allRows.map((r) => r.family))].sort().map((f) => {
      const rs = allRows.filter((r) => r.family === f)
      return [
        f,
        {
          composites: rs.length,
          iou_below_0_9: rs.filter(isBad).length,
          iou_0_95_up: rs.filter(isGood).length,
          mean_iou: round(rs.reduce((s, r) => s + r.iou, 0) / rs.length, 4),
          likely_wrong: rs.filter((r) => reviewLevel(r.score) === 'likely_wrong').length,
          worth_a_look: rs.filter((r) => reviewLevel(r.score) === 'worth_a_look').length
        }
      ]
    })
  )
  const candidates = Object.fromEntries(
    (Object.keys(CANDIDATE_TERMS) as CandidateTerm[]).map((t) => [
      t,
      {
        auc_alone_out_of_fold: round(aucOf(fit, outOfFold(fit, [t])), 4),
        auc_with_score_terms_out_of_fold: SCORE_TERMS.includes(t) ? null : round(aucOf(fit, outOfFold(fit, [...SCORE_TERMS, t])), 4)
      }
    ])
  )
  const ms = rows.map((r) => r.ms)
  // The targets are about photos with a subject; the no-subject frames are said apart (a cutout
  // that keeps nothing is "Worth a look" by rule, right or not).
  const noSubject = (rs: Row[]): Record<string, unknown> => {
    const empty = rs.filter((r) => r.group === 'empty')
    const kept = empty.filter((r) => r.iou < BAD)
    return {
      composites: empty.length,
      keeping_nothing: empty.length - kept.length,
      keeping_something: kept.length,
      of_them_at_a_level: kept.filter((r) => r.score >= WORTH_A_LOOK).length,
      of_them_likely_wrong: kept.filter((r) => r.score >= LIKELY_WRONG).length
    }
  }
  // The scene with a second subject in the photo behind, said apart: how many of its cutouts that
  // keep more than the pasted subject (IoU < BAD with it) get a level.
  const secondSubject = (part: Part): Record<string, unknown> => {
    const two = allRows.filter((r) => r.family === SECOND_SUBJECT && r.part === part)
    const flagged = (t: (r: Row) => boolean): string =>
      `${two.filter((r) => t(r) && r.score >= WORTH_A_LOOK).length} of ${two.filter(t).length}`
    return {
      composites: two.length,
      kept_other_subject_iou_below_0_9_at_a_level: flagged((r) => r.iou < BAD),
      iou_0_95_up_at_a_level: flagged((r) => r.iou >= GOOD)
    }
  }
  const partFigures = (part: Part): Record<string, unknown> => {
    const all = rows.filter((r) => r.part === part)
    const rs = subject(all)
    return {
      with_a_subject: 'the figures below are on the composites with a subject; no_subject and all_composites after them',
      auc: round(aucOf(rs, scoresOf(rs)), 4),
      spearman: round(
        spearman(
          scoresOf(rs),
          rs.map((r) => 1 - r.iou)
        ),
        4
      ),
      keeping_nothing: rs.filter((r) => r.features.foreground === 0).length,
      ...levelFigures(rs, scoresOf(rs), WORTH_A_LOOK, LIKELY_WRONG),
      no_subject: noSubject(all),
      second_subject: secondSubject(part),
      all_composites: pick(levelFigures(all, scoresOf(all), WORTH_A_LOOK, LIKELY_WRONG))
    }
  }
  return {
    composites: { all: allRows.length, fit: fit.length, held_aside: aside.length, second_subject: allRows.length - rows.length },
    levels: { worth_a_look: WORTH_A_LOOK, likely_wrong: LIKELY_WRONG, classes: `IoU < ${BAD} to catch, IoU ≥ ${GOOD} not to flag` },
    held_aside: partFigures('held-aside'),
    fit: {
      ...partFigures('fit'),
      auc_out_of_fold: round(
        aucOf(
          subject(fit),
          outOfFold(fit, SCORE_TERMS).filter((_, i) => fit[i]!.group !== 'empty')
        ),
        4
      ),
      folds: new Set(fit.map((r) => r.group)).size
    },
    recommended: {
      rule: `on the fitting part's composites with a subject: "Worth a look" the lowest score flagging at most ${FALSE_FLAGS * 100} % of IoU ≥ ${GOOD}; "Likely wrong" the lowest above it with ${PRECISION * 100} % of its cutouts at IoU < ${BAD}`,
      shipped_weights: {
        ...recommended,
        held_aside: pick(levelFigures(subject(aside), scoresOf(subject(aside)), recommended.worth_a_look, recommended.likely_wrong))
      },
      refitted_weights: {
        ...recommendedRefit,
        held_aside: pick(
          levelFigures(subject(aside), refitScores(subject(aside)), recommendedRefit.worth_a_look, recommendedRefit.likely_wrong)
        )
      }
    },
    model: {
      terms: SCORE_TERMS,
      shipped: { bias: MODEL.bias, weights: [MODEL.entropy, MODEL.pieceRoughness] },
      refitted_on_fit: { bias: round(refit.bias, 3), weights: refit.weights.map((w) => round(w, 3)) },
      lambda: LAMBDA,
      fitted_on: trained.length
    },
    by_kind: byKind,
    candidates_on_fit: candidates,
    cost_ms: { mean: round(ms.reduce((s, v) => s + v, 0) / ms.length, 2), median: round(median(ms), 2), max: round(Math.max(...ms), 2) }
  }
}

/** The headline figures of `levelFigures`, without the lists. */
function pick(f: Record<string, unknown>): Record<string, unknown> {
  return { catch_rate: f.catch_rate, false_flag_rate: f.false_flag_rate, flagged: f.flagged }
}
