/**
 * Decodes a job's hint (`hint.ts`): untrusted bytes, so this runs in the decode sandbox, as every
 * input's decode does. Only PNG, JPEG and WebP are read; the hint's upright size must be the
 * image's. Its colours become one grey channel; transparent pixels count as mid grey (left to
 * the model), so a stroke layer exported with transparency around the strokes works as it is.
 */
import sharp, { type Metadata } from 'sharp'
import { JobFailure } from '../../errors'
import { sniffImageType } from '../decode/sniff'
import { HINT_TYPES, type HintPlane } from './hint'
import { errorText } from '../../../../shared/errors'

export interface HintDecodeRequest {
  bytes: Buffer
  /** The image's upright size: the hint's must be the same. */
  width: number
  height: number
}

export async function decodeHint(request: HintDecodeRequest): Promise<HintPlane> {
  const { bytes, width, height } = request
  const type = sniffImageType(bytes)
  if (type === null || !HINT_TYPES.includes(type)) throw new JobFailure('unsupported_image', 'the hint is not a PNG, JPEG or WebP image')
  let meta: Metadata
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata()
  } catch (cause) {
    throw new JobFailure('unsupported_image', `the hint cannot be read: ${errorText(cause)}`, { cause })
  }
  const w = meta.autoOrient?.width ?? meta.width ?? 0
  const h = meta.autoOrient?.height ?? meta.height ?? 0
  // Checked on the header, before any pixel is decoded: a hint never costs more than its image.
  if (w !== width || h !== height)
    throw new JobFailure('unsupported_image', `the hint is ${w}×${h}; the image is ${width}×${height} upright`)
  let data: Buffer
  try {
    data = await sharp(bytes, { failOn: 'error', limitInputPixels: width * height, autoOrient: true })
      .flatten({ background: '#808080' })
      .greyscale()
      .extractChannel(0)
      .raw({ depth: 'uchar' })
      .toBuffer()
  } catch (cause) {
    throw new JobFailure('unsupported_image', `the ${type} hint cannot be decoded: ${errorText(cause)}`, { cause })
  }
  if (data.length !== width * height)
    throw new JobFailure('pipeline_error', `the hint decoded to ${data.length} bytes, expected ${width * height}`)
  return { data, width, height }
}
