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
import { OUTPUT_LIMITS, type OutputBound } from '../pipeline/compose/output-limits'
import { planPlacement } from '../pipeline/compose/placement'
import { wholeFrame, type LookBox } from '../pipeline/guide/look-again'

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
