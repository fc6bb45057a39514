/**
 * The types both sides of the segmentation unit share: the looks (`look/`), the mask code and the
 * pipeline's alpha step (`pipeline/segment-and-refine.ts`, the refine step, the look-again boxes)
 * all take them from here, so none of them imports another for a type (docs/architecture.md,
 * "The segmentation unit").
 */
import type { Segmenter } from './mask'
import type { ModelVariant } from './model'

/** A 1-channel 8-bit plane (a mask at the model's size or at the image's). */
export interface MaskPlane {
  data: Buffer
  width: number
  height: number
}

/**
 * What makes masks. `segment` (full-size mask) is enough; a real `Segmenter` also gives the
 * model-size mask and its variant, which the cache and the refine step use.
 */
export interface MaskSource {
  segment: Segmenter['segment']
  segmentAtModelSize?: Segmenter['segmentAtModelSize']
  variant?: ModelVariant
  /** Names the model in the mask cache (a registry model); else derived from `variant`. */
  modelKey?: string
}

/**
 * The mask cache as the looks use it: the engine's `MaskCache` (`store/mask-cache.ts`), passed
 * in by whoever runs them, never reached for. Masks by the input's content hash and the model's
 * key; `getOrCompute` runs `compute` once for callers asking at the same time.
 */
export interface MaskStore {
  getOrCompute(hash: string, model: string, compute: () => Promise<MaskPlane>): Promise<{ mask: MaskPlane; hit: boolean }>
}
