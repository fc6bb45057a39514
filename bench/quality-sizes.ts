/**
 * The second look's part of `npm run bench:quality` (docs/pipeline.md "Second look"): the size
 * scenes (`size-scenes.ts`) through the alpha step with the default refinement, the first look
 * alone (`look=off`) and with the second look (`look=auto`), and the model on the subject's true
 * box zoomed (what a view that knew where the subject is could give: the bound of any view of
 * this kind; its mask alone, no refine). Per part (fit, held-aside) and family: mean and min IoU,
 * how many composites got a second look and the model runs it took, and the review on what is
 * delivered: of those still wrong how many it flags, of those right how many it leaves alone.
 */
import { computeAlpha } from '../src/main/engine/pipeline/segment-and-refine'
import type { DecodedImage } from '../src/main/engine/pipeline/decode/decode'
import { cropAround, CONTEXT_MARGIN } from '../src/main/engine/segment/mask/detail'
import { resizeGrey } from '../src/main/engine/segment/mask/resample'
import { subjectBox } from '../src/main/engine/segment/look/second-look'
import { runView } from '../src/main/engine/segment/look/views'
import { reviewLevel, type ReviewLevel } from '../src/shared/review'
import { round } from './lib'
import type { CountingSource } from './quality-source'
import { sizeComposites, SIZE_FAMILIES } from './size-scenes'

export interface SizeRow {
  scene: string
  family: string
  part: string
  first_iou: number
  second_iou: number
  /** The model on the subject's true box zoomed (mask only). */
  true_box_iou: number
  second_look: { views: number; reason: string } | null
  /** The review level of the first look's cutout and of the delivered one (null: not flagged). */
  review_first: ReviewLevel | null
  review_second: ReviewLevel | null
  /** Model runs the second look took beyond the first. */
  extra_runs: number
}

export async function sizeRows(
  source: CountingSource,
  refDir: string,
  photos: string[],
  limit?: number,
  part?: string
): Promise<SizeRow[]> {
  const rows: SizeRow[] = []
  for await (const s of sizeComposites(refDir, photos, source, limit)) {
    if (part && s.part !== part) continue
    const sc = s.scene
    const image: DecodedImage = { data: sc.image, width: sc.width, height: sc.height, channels: 4, hasAlpha: false, warnings: [] }
    const deps = { segmenter: source }
    const first = await computeAlpha(image, sc.image, deps, { alpha: 'auto', refine: 'edges', look: 'off' })
    source.reset()
    const second = await computeAlpha(image, sc.image, deps, { alpha: 'auto', refine: 'edges', look: 'auto' })
    const extra = Math.max(0, source.calls.length - 1)
    const box = subjectBox({ data: sc.alpha, width: sc.width, height: sc.height })!
    const crop = cropAround(box.left, box.top, box.width, box.height, sc.width, sc.height, CONTEXT_MARGIN)
    const view = await runView(image, { crop, mirror: false }, source)
    const onBox = Buffer.alloc(sc.width * sc.height)
    const m = resizeGrey(view.mask.data, view.mask.width, view.mask.height, crop.width, crop.height)
    for (let y = 0; y < crop.height; y++) m.copy(onBox, (crop.top + y) * sc.width + crop.left, y * crop.width, (y + 1) * crop.width)
    rows.push({
      scene: sc.name,
      family: s.family,
      part: s.part,
      first_iou: round(iou(first.alpha, sc.alpha), 4),
      second_iou: round(iou(second.alpha, sc.alpha), 4),
      true_box_iou: round(iou(onBox, sc.alpha), 4),
      second_look: second.secondLook,
      review_first: reviewLevel(first.uncertainty),
      review_second: reviewLevel(second.uncertainty),
      extra_runs: second.secondLook ? extra : 0
    })
  }
  return rows
}

function iou(a: Uint8Array, t: Uint8Array): number {
  let i = 0
  let u = 0
  for (let k = 0; k < t.length; k++) {
    const p = a[k]! >= 128
    const q = t[k]! >= 128
    if (p && q) i++
    if (p || q) u++
  }
  return u === 0 ? 1 : i / u
}

/** Mean and min IoU per part and family, first look against second, with the true box's bound. */
export function summariseSizes(rows: SizeRow[]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {}
  for (const part of ['held-aside', 'fit']) {
    const mine = rows.filter((r) => r.part === part)
    if (mine.length === 0) continue
    const families: Record<string, unknown> = {}
    for (const { family } of SIZE_FAMILIES) {
      const f = mine.filter((r) => r.family === family)
      if (f.length === 0) continue
      const stat = (k: 'first_iou' | 'second_iou' | 'true_box_iou') => ({
        mean: round(f.reduce((s, r) => s + r[k], 0) / f.length, 3),
        min: round(Math.min(...f.map((r) => r[k])), 3)
      })
      families[family] = {
        composites: f.length,
        first_look: stat('first_iou'),
        second_look: stat('second_iou'),
        model_on_true_box: stat('true_box_iou'),
        second_looks: f.filter((r) => r.second_look).length,
        // The review on what is delivered: still wrong (IoU < 0.5) and flagged; right (≥ 0.9) and not flagged.
        review: {
          wrong: f.filter((r) => r.second_iou < 0.5).length,
          wrong_flagged: f.filter((r) => r.second_iou < 0.5 && r.review_second).length,
          right: f.filter((r) => r.second_iou >= 0.9).length,
          right_unflagged: f.filter((r) => r.second_iou >= 0.9 && !r.review_second).length,
          fixed_now_unflagged: f.filter((r) => r.first_iou < 0.5 && r.second_iou >= 0.9 && r.review_first && !r.review_second).length
        },
        extra_model_runs: f.reduce((s, r) => s + r.extra_runs, 0)
      }
    }
    out[part] = families
  }
  return out
}
