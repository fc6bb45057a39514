/**
 * The resolved parameter set of a job (docs/params.md "Parameter sets"): every key with its value,
 * after presets and defaults for the mode are applied. The grammar that reads a set lives in
 * `params.ts`, the layering that produces this in `params-layers.ts`.
 */
import type { Mode, OutputFormat, Variation } from './api'

export type BackgroundSpec =
  | { kind: 'transparent' }
  | { kind: 'color'; rgba: [number, number, number, number] }
  /** The original photo, blurred. `radius`: the Gaussian's standard deviation in output pixels; null: 2 % of the canvas's long edge. */
  | { kind: 'blur'; radius: number | null }

export type SizeSpec = { kind: 'original' } | { kind: 'box'; width: number; height: number } | { kind: 'long'; max: number }

/** One length of a margin: pixels, or a share of the canvas's width (left/right) or height (top/bottom). */
export interface MarginLength {
  unit: '%' | 'px'
  value: number
}

/**
 * `margin=`: one length for the four sides, or four in CSS order (top, right, bottom, left).
 * A stored set of a version before four sides holds the single form, which stays valid.
 */
export type MarginSpec = MarginLength | [MarginLength, MarginLength, MarginLength, MarginLength]

export interface MarginSides {
  top: MarginLength
  right: MarginLength
  bottom: MarginLength
  left: MarginLength
}

/** The four sides of a margin, whichever form it was given in. */
export function marginSides(m: MarginSpec): MarginSides {
  if (Array.isArray(m)) return { top: m[0], right: m[1], bottom: m[2], left: m[3] }
  return { top: m, right: m, bottom: m, left: m }
}

export type HorizontalAlign = 'left' | 'center' | 'right'
export type VerticalAlign = 'top' | 'center' | 'bottom'

/**
 * `position=`: where the placed part sits on each axis, in its shortest form: `center` (both
 * axes centred), `top`/`bottom` (centred horizontally), `left`/`right` (centred vertically), or
 * `<x>,<y>` when neither axis is centred (`left,bottom`).
 */
export type PositionSpec = 'center' | 'top' | 'bottom' | 'left' | 'right' | `${'left' | 'right'},${'top' | 'bottom'}`

/** The alignment of each axis of a position. */
export function positionAxes(p: PositionSpec): { x: HorizontalAlign; y: VerticalAlign } {
  switch (p) {
    case 'center':
      return { x: 'center', y: 'center' }
    case 'top':
    case 'bottom':
      return { x: 'center', y: p }
    case 'left':
    case 'right':
      return { x: p, y: 'center' }
    default: {
      const [x, y] = p.split(',') as [HorizontalAlign, VerticalAlign]
      return { x, y }
    }
  }
}

/** The shortest form of a position (what `positionAxes` reads back). */
export function positionOf(x: HorizontalAlign, y: VerticalAlign): PositionSpec {
  if (x === 'center') return y
  if (y === 'center') return x
  return `${x},${y}`
}

/**
 * How far a job may enlarge the placed part of the photo before it says so (`upscale=allow`):
 * beyond 2× the pixels are visibly soft.
 */
export const UPSCALE_WARN_FACTOR = 2

/**
 * `upscale=<f>x` or `upscale=<f>x,<floor>` (`2x,1000`): the placed part is enlarged at most f×;
 * where filling the canvas `size` asks would take more, the canvas shrinks, in proportion, to
 * the largest that keeps to it, but not under `floor` px on its long edge (there the part is
 * enlarged further, with the warning). What the store presets use (docs/store-ready.md).
 */
export type UpscaleLimit = `${number}x` | `${number}x,${number}`

/** The factor and floor of an `upscale` limit; null for `allow` and `never`. */
export function upscaleLimit(u: JobParams['upscale']): { max: number; floor: number } | null {
  if (u === undefined || u === 'allow' || u === 'never') return null
  const [factor, floor] = u.split(',')
  return { max: Number(factor!.slice(0, -1)), floor: floor === undefined ? 1 : Number(floor) }
}

export interface JobParams {
  background: BackgroundSpec
  shadow: 'none' | 'top'
  crop: 'none' | 'subject'
  size: SizeSpec
  margin: MarginSpec
  position: PositionSpec
  /**
   * `allow`: the placed part is scaled to fit the canvas whatever it takes, with a warning beyond
   * `UPSCALE_WARN_FACTOR`; `never`: it is never enlarged, it keeps the photo's own size.
   * Absent in sets stored before the key existed (read as `allow`, what they did).
   */
  upscale?: 'allow' | 'never' | UpscaleLimit
  /**
   * The file format the set writes (`format=jpg`): what a job runs with when its request names
   * none (a store preset writes what the store takes); a format the request names wins.
   * Absent: the request's, else PNG.
   */
  format?: OutputFormat
  /** Variations to make, in order. */
  variations: Variation[]
  /** The variation `final_url` points at. */
  primary: Variation
  /** 1–100 for jpg/webp; null: the encoder's default. */
  quality: number | null
  /** `detail` is an alias of `edges` with `look=always` (the second look on every photo). */
  refine: 'none' | 'edges' | 'detail'
  /**
   * The second look (docs/pipeline.md "Second look"): `auto` where the first mask is doubtful
   * (uncertain, small or empty), `off` never, `always` on every photo. Absent in sets stored
   * before the key existed (read as `auto`).
   */
  look?: SecondLookSetting
  alpha: 'auto' | 'keep'
  /** The registry model that makes the mask; null: the default model setting. */
  model: string | null
  /**
   * The input's EXIF/IPTC/XMP in the outputs: `keep` (default) without the orientation (already
   * applied) and the GPS position, `keep-gps` with the position, `strip` none. The ICC profile
   * is kept whatever this says: it is what the pixel values mean.
   */
  metadata: 'keep' | 'keep-gps' | 'strip'
  /** The preset the set started from, if any (for names and display). */
  preset: string | null
}

export const SECOND_LOOK_SETTINGS = ['auto', 'off', 'always'] as const
export type SecondLookSetting = (typeof SECOND_LOOK_SETTINGS)[number]

// What a photo's second look was (the job's answer, not a parameter): `second-look.ts`, below `api.ts`.
export { SECOND_LOOK_REASONS, type SecondLook, type SecondLookReason } from './second-look'

/** The second look a job asks for: `look`, with `refine=detail` as its old name for `always`. */
export function secondLookSetting(p: Pick<JobParams, 'refine' | 'look'>): SecondLookSetting {
  return p.refine === 'detail' ? 'always' : (p.look ?? 'auto')
}

/** What a `clipping` job does: the subject on a transparent canvas of the input's size. */
export const CLIPPING_DEFAULTS: JobParams = {
  background: { kind: 'transparent' },
  shadow: 'none',
  crop: 'none',
  size: { kind: 'original' },
  margin: { unit: 'px', value: 0 },
  position: 'center',
  upscale: 'allow',
  variations: ['clipping'],
  primary: 'clipping',
  quality: null,
  refine: 'edges',
  look: 'auto',
  alpha: 'auto',
  model: null,
  metadata: 'keep',
  preset: null
}

/**
 * What a `background` job does, and the base of a `params` job: white background, the four
 * variations, `compose` as the primary (docs/params.md).
 */
export const BACKGROUND_DEFAULTS: JobParams = {
  ...CLIPPING_DEFAULTS,
  background: { kind: 'color', rgba: [255, 255, 255, 255] },
  shadow: 'top',
  variations: ['clipping', 'background', 'compose', 'shadowTop'],
  primary: 'compose'
}

/** The parameter set of each mode before any `params` are applied. */
export const MODE_DEFAULTS: Record<Mode, JobParams> = {
  clipping: CLIPPING_DEFAULTS,
  background: BACKGROUND_DEFAULTS,
  params: BACKGROUND_DEFAULTS
}
