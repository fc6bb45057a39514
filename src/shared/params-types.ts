/**
 * The resolved parameter set of a job (docs/params.md "Parameter sets"): every key with its value,
 * after presets and defaults for the mode are applied. The grammar that produces it lives in
 * `params.ts`.
 */
import type { Mode, Variation } from './api'

export type BackgroundSpec =
  | { kind: 'transparent' }
  | { kind: 'color'; rgba: [number, number, number, number] }
  /** The original photo, blurred. `radius`: the Gaussian's standard deviation in output pixels; null: 2 % of the canvas's long edge. */
  | { kind: 'blur'; radius: number | null }

export type SizeSpec = { kind: 'original' } | { kind: 'box'; width: number; height: number } | { kind: 'long'; max: number }

export interface JobParams {
  background: BackgroundSpec
  shadow: 'none' | 'top'
  crop: 'none' | 'subject'
  size: SizeSpec
  margin: { unit: '%' | 'px'; value: number }
  position: 'center' | 'bottom'
  /** Variations to make, in order. */
  variations: Variation[]
  /** The variation `final_url` points at. */
  primary: Variation
  /** 1–100 for jpg/webp; null: the encoder's default. */
  quality: number | null
  refine: 'none' | 'edges' | 'detail'
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

/** What a `clipping` job does: the subject on a transparent canvas of the input's size. */
export const CLIPPING_DEFAULTS: JobParams = {
  background: { kind: 'transparent' },
  shadow: 'none',
  crop: 'none',
  size: { kind: 'original' },
  margin: { unit: 'px', value: 0 },
  position: 'center',
  variations: ['clipping'],
  primary: 'clipping',
  quality: null,
  refine: 'edges',
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
