/**
 * The vocabulary of parameter sets (docs/params.md "Parameter sets"): the keys a set may carry,
 * what each accepts in words, the limits of their values and the shapes every step of the
 * family hands on: the grammar (`params.ts`) reads a `ParamSet`, the layering
 * (`params-layers.ts`) resolves it, the writer (`params-format.ts`) writes it back. No Node, no
 * DOM here.
 */
import { OUTPUT_FORMATS, VARIATIONS } from './api'
import type { ErrorDetail } from './errors'
import { MAX_MARGIN_PX, MARGIN_PERCENT_LIMIT } from './params-framing'
import { UPSCALE_WARN_FACTOR, type JobParams } from './params-types'

/** Longest accepted `params` string (docs/params.md, docs/api.md limits). */
export const MAX_PARAMS_LENGTH = 2048
/** Largest output side (`size=<W>x<H>` or `size=<max>`), in pixels. */
export const MAX_OUTPUT_SIDE = 10_000
/** Largest `blur:<px>` radius. */
export const MAX_BLUR_RADIUS = 250

/** A preset's name: also what makes a `params` string a preset reference. */
export const PRESET_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/

/** Every key a parameter set may carry, in the order `formatParams` writes them. */
export const PARAM_KEYS = [
  'background',
  'shadow',
  'crop',
  'size',
  'margin',
  'position',
  'upscale',
  'variations',
  'primary',
  'quality',
  'refine',
  'look',
  'alpha',
  'model',
  'metadata',
  'format'
] as const
export type ParamKey = (typeof PARAM_KEYS)[number]

/** The values a set gives (any subset of the keys). */
export type ParamValues = Partial<Pick<JobParams, ParamKey>>

/** A parsed parameter set: the preset it starts from (if any) and its own keys. */
export interface ParamSet {
  preset: string | null
  values: ParamValues
}

/** What each key accepts, as said in error messages and docs. */
export const PARAM_EXPECTED: Record<ParamKey, string> = {
  background: `transparent, a colour name (white, black, grey, beige…), #RGB, #RGBA, #RRGGBB, #RRGGBBAA, blur or blur:<px> (1–${MAX_BLUR_RADIUS})`,
  shadow: 'none or top',
  crop: 'none or subject',
  size: `original, <W>x<H> or <max> (whole numbers from 1 to ${MAX_OUTPUT_SIDE})`,
  margin: `<n>% (0 to under ${MARGIN_PERCENT_LIMIT}) or <n>px (0 to ${MAX_MARGIN_PX}), or four of them for top,right,bottom,left (4%,6%,8%,6%)`,
  position: 'center, top, bottom, left, right, or <x>,<y> (x: left, center, right; y: top, center, bottom)',
  upscale: `allow (enlarged to fit, said in warnings beyond ${UPSCALE_WARN_FACTOR}×), never (kept at the photo's own size), or <f>x[,<px>] (at most f× (1–10): the canvas shrinks to keep to it, not under <px> on its long edge)`,
  variations: `a comma-separated list of ${VARIATIONS.join(', ')} (each at most once)`,
  primary: `one of ${VARIATIONS.join(', ')}`,
  quality: 'a whole number from 1 to 100',
  refine: 'none, edges or detail',
  look: 'auto (a second look where the first is doubtful), off or always',
  alpha: 'auto or keep',
  model: 'a model name from the model registry (clipdesk models list), e.g. medium',
  metadata: 'keep, keep-gps or strip',
  format: `the file format when the request names none: ${OUTPUT_FORMATS.join(', ')}`
}

/** Keys within one set that contradict each other: a `primary` outside the set's `variations`. */
export function checkSet(values: ParamValues, details: ErrorDetail[]): void {
  if (values.primary && values.variations && !values.variations.includes(values.primary)) {
    details.push({ field: 'params.primary', issue: `"${values.primary}" is not among the variations (${values.variations.join(', ')})` })
  }
}
