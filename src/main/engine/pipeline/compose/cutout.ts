/**
 * The clipping variation: the subject on a transparent canvas, same size as the input.
 *
 * A plain typed-array loop rather than sharp's joinChannel: the layout is explicit, and the
 * loop also folds in any alpha the input already had.
 */
import type { RgbaImage } from './variation'
import { JobFailure } from '../../errors'

/**
 * RGBA whose alpha is `mask` (1 channel, 8-bit, width × height) multiplied by the input's own
 * alpha, so pixels that were already transparent stay transparent whatever the model says
 * (their colour is often meaningless). For opaque inputs this is exactly the mask.
 */
export function makeCutout(image: RgbaImage, mask: Buffer): Buffer {
  const pixels = image.width * image.height
  if (image.channels !== 4 || image.data.length !== pixels * 4) {
    throw new JobFailure('pipeline_error', `cutout image is not ${image.width}×${image.height} RGBA`)
  }
  if (mask.length !== pixels) {
    throw new JobFailure('pipeline_error', `mask has ${mask.length} bytes, expected ${pixels} (1 channel)`)
  }
  const out = Buffer.from(image.data)
  for (let i = 0, a = 3; i < pixels; i++, a += 4) {
    const m = mask[i]!
    const alpha = out[a]!
    // Exact integer rounding of m·alpha/255; skip the arithmetic in the common opaque case.
    out[a] = alpha === 255 ? m : Math.round((m * alpha) / 255)
  }
  return out
}
