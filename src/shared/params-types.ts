/**
 * The resolved parameter set of a job (SPEC §2 "Parameter sets"): every key with its value,
 * after presets and defaults for the mode are applied. The grammar that produces it lives in
 * `params.ts`.
 */
import type { Variation } from './api'

export type BackgroundSpec =
  | { kind: 'transparent' }
  | { kind: 'color'; rgba: [number, number, number, number] }
  | { kind: 'blur'; radius: number }

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
  refine: 'none' | 'edges'
  alpha: 'auto' | 'keep'
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
  preset: null
}
