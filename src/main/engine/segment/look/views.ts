/**
 * Views of a photo for the second look (`second-look.ts`): a rectangle of it, perhaps mirrored,
 * shown to the model at the model's size, and the model's mask of it. A crop gives a small
 * subject more of the model's 1024² grid; a mirror shows the same pixels in another order, which
 * is enough to move the model's answer where it hesitates.
 */
import { extract, type Crop } from '../mask/detail'
import { MODEL_SIZE, type SegmentInput } from '../mask/mask'
import type { MaskPlane, MaskSource } from '../mask/types'

/** What the model was shown: a rectangle of the photo (image pixels), mirrored left to right or not. */
export interface ViewSpec {
  crop: Crop
  mirror: boolean
}

/** A view and the model's mask of it, mirrored back: the mask's pixels lie as the crop's do. */
export interface View extends ViewSpec {
  mask: MaskPlane
}

/** One model run on a view of `image`. */
export async function runView(image: SegmentInput, spec: ViewSpec, source: MaskSource, signal?: AbortSignal): Promise<View> {
  const { crop } = spec
  const whole = crop.left === 0 && crop.top === 0 && crop.width === image.width && crop.height === image.height
  let data = whole ? image.data : extract(image, crop)
  if (spec.mirror) data = mirrorRows(data, crop.width, crop.height, image.channels, data === image.data)
  const pixels: SegmentInput = { data, width: crop.width, height: crop.height, channels: image.channels }
  signal?.throwIfAborted()
  let mask: MaskPlane
  if (source.segmentAtModelSize) {
    const r = await source.segmentAtModelSize(pixels, signal)
    mask = { data: r.mask, width: r.width ?? MODEL_SIZE, height: r.height ?? MODEL_SIZE }
  } else mask = { data: await source.segment(pixels, signal), width: crop.width, height: crop.height }
  // The model saw the crop stretched to its square: the stretch of a mirror is the mirror of the stretch.
  if (spec.mirror) mask = { ...mask, data: mirrorRows(mask.data, mask.width, mask.height, 1, false) }
  return { ...spec, mask }
}

/** Each row of a width × height plane of `channels` reversed (in place unless `copy`). */
export function mirrorRows(data: Buffer, width: number, height: number, channels: number, copy: boolean): Buffer {
  const out = copy ? Buffer.from(data) : data
  for (let y = 0; y < height; y++) {
    const row = y * width * channels
    for (let a = 0, b = width - 1; a < b; a++, b--) {
      const i = row + a * channels
      const j = row + b * channels
      for (let c = 0; c < channels; c++) {
        const t = out[i + c]!
        out[i + c] = out[j + c]!
        out[j + c] = t
      }
    }
  }
  return out
}

/** The 2×2 tiles of a width × height frame, each `share` of each side (so neighbours overlap by 2·share − 1). */
export function tiles(width: number, height: number, share = TILE_SHARE): Crop[] {
  const tw = Math.min(width, Math.ceil(width * share))
  const th = Math.min(height, Math.ceil(height * share))
  const out: Crop[] = []
  for (const top of [0, height - th]) for (const left of [0, width - tw]) out.push({ left, top, width: tw, height: th })
  return out
}

/** A tile's side over the frame's: neighbours overlap by a fifth of the frame, so a subject cut by one tile's edge lies whole in another. */
export const TILE_SHARE = 0.6
