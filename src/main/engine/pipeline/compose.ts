/**
 * The compose step: builds each requested variation from the image and its alpha.
 * Today: `clipping` only. (Backgrounds, shadow, crop/size/placement and PSD layers plug in here.)
 */
import type { Variation } from '../../../shared/api'
import type { JobParams } from '../../../shared/params-types'
import { JobFailure } from '../errors'
import { makeCutout } from './cutout'
import type { DecodedImage } from './decode'
import type { RgbaImage } from './encode'

export interface ComposedVariation {
  variation: Variation
  image: RgbaImage
}

export interface ComposeResult {
  variations: ComposedVariation[]
  warnings: Partial<Record<Variation, string[]>>
  ignored: Variation[]
}

export async function composeVariations(image: DecodedImage, alpha: { alpha: Buffer; foreground: Buffer }, params: JobParams): Promise<ComposeResult> {
  const variations: ComposedVariation[] = []
  for (const variation of params.variations) {
    if (variation !== 'clipping') throw new JobFailure('not_implemented', `The variation "${variation}" is not available in this version.`)
    const data = makeCutout({ data: alpha.foreground, width: image.width, height: image.height, channels: 4 }, alpha.alpha)
    variations.push({ variation, image: { data, width: image.width, height: image.height, channels: 4 } })
  }
  return { variations, warnings: {}, ignored: [] }
}
