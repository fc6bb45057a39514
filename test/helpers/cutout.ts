import sharp from 'sharp'
import type { Rect } from '../../src/main/engine/pipeline/compose/placement'

/**
 * A PNG with its own transparency: an opaque red block at `rect` on a transparent canvas. With
 * `alpha=keep` a job takes this alpha as it is (no model run), so framing tests know the
 * subject's box to the pixel.
 */
export async function blockPng(width: number, height: number, rect: Rect): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 4)
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    for (let x = rect.x; x < rect.x + rect.width; x++) data.set([200, 30, 40, 255], (y * width + x) * 4)
  }
  return sharp(data, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer()
}

/** A decoded image's pixels as RGBA, with a reader of one pixel. */
export async function rgbaOf(
  bytes: Buffer | string
): Promise<{ data: Buffer; width: number; height: number; at(x: number, y: number): number[] }> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  return {
    data,
    width: info.width,
    height: info.height,
    at: (x, y) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)]
  }
}

/**
 * The box of the subject's red pixels in an RGBA image (red well above green, however dark: a
 * grey shadow or a white background is not red); null when none.
 */
export function redBox(img: { data: Buffer; width: number; height: number }): Rect | null {
  let x0 = img.width
  let y0 = img.height
  let x1 = -1
  let y1 = -1
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const i = (y * img.width + x) * 4
      if (img.data[i + 3]! >= 128 && img.data[i]! - img.data[i + 1]! > 40) {
        if (x < x0) x0 = x
        if (x > x1) x1 = x
        if (y < y0) y0 = y
        if (y > y1) y1 = y
      }
    }
  }
  return x1 < 0 ? null : { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 }
}
