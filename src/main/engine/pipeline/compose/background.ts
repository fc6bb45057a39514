/**
 * The `background` variation (docs/params.md): the new background alone, at the output canvas size —
 * transparent, one colour, or the original photo blurred (aligned with the placed subject, so
 * that `compose` shows the subject over its own surroundings, out of focus).
 */
import sharp, { type OutputInfo } from 'sharp'
import type { BackgroundSpec } from '../../../../shared/params-types'
import { JobFailure } from '../../errors'
import type { RgbaImage } from './variation'
import { coverCanvas, type Placement } from './placement'

/** `blur` without a radius: this share of the canvas's long edge (at least 2 px). */
export const AUTO_BLUR_SHARE = 0.02

export function blurRadius(spec: Extract<BackgroundSpec, { kind: 'blur' }>, canvas: { width: number; height: number }): number {
  return spec.radius ?? Math.max(2, Math.round(AUTO_BLUR_SHARE * Math.max(canvas.width, canvas.height)))
}

export async function makeBackground(
  spec: BackgroundSpec,
  image: { data: Buffer; width: number; height: number },
  placement: Placement
): Promise<RgbaImage> {
  const { width, height } = placement.canvas
  const data = Buffer.alloc(width * height * 4)
  if (spec.kind === 'color') {
    const px = Buffer.from(spec.rgba)
    for (let i = 0; i < data.length; i += 4) px.copy(data, i)
  } else if (spec.kind === 'blur') {
    const cover = await coverCanvas(image.data, image, placement)
    ;(await gaussianBlur(cover, width, height, blurRadius(spec, placement.canvas))).copy(data)
  }
  return { data, width, height, channels: 4 }
}

/**
 * A Gaussian blur of RGBA pixels. Wide blurs run on a smaller copy and are scaled back up: the
 * result is the same to the eye, at a fraction of the cost on large canvases.
 */
async function gaussianBlur(rgba: Buffer, width: number, height: number, sigma: number): Promise<Buffer> {
  const factor = sigma > 8 ? Math.min(8, Math.floor(sigma / 4)) : 1
  const raw = { width, height, channels: 4 as const }
  let out: { data: Buffer; info: OutputInfo }
  if (factor === 1) {
    out = await sharp(rgba, { raw }).blur(sigma).raw().toBuffer({ resolveWithObject: true })
  } else {
    const sw = Math.max(1, Math.round(width / factor))
    const sh = Math.max(1, Math.round(height / factor))
    const small = await sharp(rgba, { raw })
      .resize(sw, sh, { fit: 'fill' })
      .blur(Math.max(0.3, sigma / factor))
      .raw()
      .toBuffer()
    out = await sharp(small, { raw: { width: sw, height: sh, channels: 4 } })
      .resize(width, height, { fit: 'fill' })
      .raw()
      .toBuffer({ resolveWithObject: true })
  }
  if (out.info.channels !== 4 || out.data.length !== width * height * 4) {
    throw new JobFailure('pipeline_error', `blurred background is ${out.info.width}×${out.info.height}×${out.info.channels}, expected RGBA`)
  }
  return out.data
}
