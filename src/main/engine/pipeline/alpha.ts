/**
 * The mask step: the alpha of the subject at the image's full size.
 * Today: the model's mask. (Mask cache, `alpha=keep` and edge refinement plug in here.)
 */
import type { JobParams } from '../../../shared/params-types'
import type { DecodedImage } from './decode'
import type { Segmenter } from './mask'

export interface AlphaDeps {
  segmenter: Pick<Segmenter, 'segment'>
}

export interface AlphaResult {
  /** 1 channel, 8-bit, image width × height. */
  alpha: Buffer
  /** RGBA foreground colours to composite with `alpha` (the input's, unless refined). */
  foreground: Buffer
  warnings: string[]
}

export async function computeAlpha(
  image: DecodedImage,
  _input: Buffer,
  deps: AlphaDeps,
  _params: JobParams,
  signal?: AbortSignal
): Promise<AlphaResult> {
  const alpha = await deps.segmenter.segment(image, signal)
  return { alpha, foreground: image.data, warnings: [] }
}
