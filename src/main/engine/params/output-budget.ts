/**
 * What a job's outputs may cost (docs/api.md §3 and §15): how many pixels it may make, how many
 * bytes it may leave, and how many credits it is charged for them.
 *
 * A 360 KB upload with `size=10000x10000` and five variations asks for 500 MP of output; with one
 * credit per job that was half a gigabyte of results and several gigabytes of memory for the
 * price of a thumbnail. So a job pays for the output pixels it asks for, and the most a job may
 * ask for is bounded.
 *
 * The bound is computed from what is known: the parameter set, and the input's size once it is
 * known (after the upload's probe, or once a `file_url` is fetched and decoded). It is an upper
 * bound where the canvas depends on the subject (`crop=subject` with `size=<max>` is charged as
 * a square) and exact otherwise; a skipped `shadowTop` is charged all the same.
 */
import { secondLookSetting, type JobParams } from '../../../shared/params-types'
import { MAX_SECOND_LOOK_VIEWS } from '../segment/look/second-look'
import { planPlacement } from '../pipeline/compose/placement'
import { wholeFrame, type LookBox } from '../pipeline/guide/look-again'

export const OUTPUT_LIMITS = {
  /** Pixels of one variation's canvas (the input's own limit). */
  variationPixels: 100_000_000,
  /** Pixels of a canvas side (PSD's limit). */
  side: 30_000,
  /** Pixels of all the variations of one job together: a 61 MP photo's four default variations fit. */
  jobPixels: 250_000_000,
  /** Bytes of all the encoded outputs of one job together. */
  jobBytes: 2 ** 30,
  /** One credit buys this many output pixels (summed over the variations), started. */
  creditPixels: 100_000_000
} as const

export interface OutputBound {
  /** Each variation's canvas, at most; null when it depends on an input not yet known. */
  canvas: { width: number; height: number } | null
  /** Variations asked for. */
  variations: number
  /** canvas × variations; null when the canvas is not known yet. */
  pixels: number | null
}

type Size = { width: number; height: number }

/**
 * The largest canvas `params` can give for an input of `input` (null: not known yet, a
 * `file_url`). Throws nothing: a margin leaving no room was refused with the set.
 */
export function canvasBound(params: Pick<JobParams, 'crop' | 'size' | 'margin' | 'position'>, input: Size | null): Size | null {
  const { size } = params
  if (size.kind === 'box') return { width: size.width, height: size.height }
  if (input === null) return null
  // The long edge is fixed; the other follows the subject's shape, at most as long.
  if (size.kind === 'long' && params.crop === 'subject') return { width: size.max, height: size.max }
  // The subject's box lies inside the input: the whole input gives the largest canvas.
  return planPlacement(input, null, { ...params, crop: 'none' }).placement.canvas
}

export function outputBound(params: JobParams, input: Size | null): OutputBound {
  const canvas = canvasBound(params, input)
  const variations = params.variations.length
  return { canvas, variations, pixels: canvas ? canvas.width * canvas.height * variations : null }
}

/** Credits a job costs for `pixels` of output (1 when not known yet: settled once it is). */
export function creditsFor(pixels: number | null): number {
  if (pixels === null || pixels <= 0) return 1
  return Math.max(1, Math.ceil(pixels / OUTPUT_LIMITS.creditPixels))
}

/**
 * Credits the look-again boxes add (docs/api.md §3): one per box the model runs on, a box being
 * one more model run and one more refine of its crop, about what the job's own run costs. A box
 * over the whole frame runs nothing (the plain run is used) and costs nothing.
 */
export function regionCredits(boxes: readonly LookBox[], input: Size): number {
  return boxes.filter((b) => !wholeFrame(b, input.width, input.height)).length
}

/**
 * Credits a forced second look adds (`look=always`, or `refine=detail`; docs/api.md §3): as a
 * look-again box, one per model run it may take, MAX_SECOND_LOOK_VIEWS. The second look the
 * default (`look=auto`) gives a doubtful photo costs nothing: it is part of making the cutout.
 */
export function secondLookCredits(params: Pick<JobParams, 'refine' | 'look'>): number {
  return secondLookSetting(params) === 'always' ? MAX_SECOND_LOOK_VIEWS : 0
}

/** The first limit `bound` passes, as a sentence naming the numbers; null when it fits. */
export function overLimit(bound: OutputBound): string | null {
  const { canvas, variations, pixels } = bound
  if (!canvas || pixels === null) return null
  const mp = (n: number): string => `${(n / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1 })} MP`
  if (
    canvas.width > OUTPUT_LIMITS.side ||
    canvas.height > OUTPUT_LIMITS.side ||
    canvas.width * canvas.height > OUTPUT_LIMITS.variationPixels
  ) {
    return `the output canvas would be ${canvas.width}×${canvas.height}, over the limit (${OUTPUT_LIMITS.side.toLocaleString('en-US')} px a side, ${mp(OUTPUT_LIMITS.variationPixels)} a variation); use a smaller size or margin`
  }
  if (pixels > OUTPUT_LIMITS.jobPixels) {
    return `${variations} variations of ${canvas.width}×${canvas.height} would be ${mp(pixels)} of output, over the ${mp(OUTPUT_LIMITS.jobPixels)} a job may make; ask for fewer variations or a smaller size`
  }
  return null
}
