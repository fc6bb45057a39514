/**
 * The contact shadow of `shadowTop` (docs/params.md): what a subject standing on a surface casts when
 * lit from straight above — a soft, flat ellipse under its base, sized and softened from the
 * footprint (the width of the subject's lowest rows), darker the broader the base.
 *
 * It is skipped, with the reason as a warning, when it cannot be made well:
 * - no subject was found (empty mask);
 * - the photo's bottom edge cuts the subject (a torso cut at the waist): it stands on the
 *   canvas's bottom edge, and a shadow under a cut would be made up;
 * - the subject hangs from the top edge of the photo (touches the top edge, not the bottom):
 *   it stands on nothing, so a shadow under it would be made up;
 * - the shadow would fall entirely outside the canvas.
 */
import sharp from 'sharp'
import { JobFailure } from '../../errors'
import { alphaBounds, SUBJECT_ALPHA_THRESHOLD, type CutSides, type Rect } from './placement'

/** Share of the subject's height that counts as its base (footprint rows). */
const FOOTPRINT_SHARE = 0.06
/** The ellipse's height as a share of its width (a surface seen from slightly above). */
const FLATNESS = 0.14
/** Blur (standard deviation) as a share of the ellipse's half-width. */
const SOFTNESS = 0.12
/** Opacity range: a narrow base casts a lighter shadow than a broad one. */
const OPACITY_MIN = 0.32
const OPACITY_SPAN = 0.28

/** A shadow layer: black RGBA whose alpha is the shadow, placed at (left, top) of the canvas. */
export interface ShadowLayer {
  data: Buffer
  left: number
  top: number
  width: number
  height: number
}

export type ShadowResult = { ok: true; layer: ShadowLayer } | { ok: false; reason: string }

function rowTouches(alpha: Buffer, width: number, y: number, stride: number, offset: number): boolean {
  for (let x = 0, i = y * width * stride + offset; x < width; x++, i += stride) if (alpha[i]! >= SUBJECT_ALPHA_THRESHOLD) return true
  return false
}

/**
 * Why no shadow can be made for this input, judged on the input's own alpha (before any crop):
 * null when a shadow can be made.
 */
export function shadowSkipReason(
  alpha: Buffer,
  width: number,
  height: number,
  subject: Rect | null,
  cut: CutSides,
  stride = 1,
  offset = 0
): string | null {
  if (!subject) return 'no subject was found, so there is nothing to cast a shadow'
  if (cut.bottom) return "the photo's bottom edge cuts the subject, so it stands on the canvas's bottom edge with no shadow under the cut"
  const top = rowTouches(alpha, width, 0, stride, offset)
  const bottom = rowTouches(alpha, width, height - 1, stride, offset)
  if (top && !bottom) return 'the subject hangs from the top edge of the photo and stands on nothing, so it casts no contact shadow'
  return null
}

/**
 * The shadow for a subject already placed on the canvas (`placed`: RGBA canvas, subject on
 * transparency).
 */
export async function makeShadow(placed: Buffer, canvas: { width: number; height: number }): Promise<ShadowResult> {
  const { width: W, height: H } = canvas
  const box = alphaBounds(placed, W, H, { stride: 4, offset: 3 })
  if (!box) return { ok: false, reason: 'no subject was found, so there is nothing to cast a shadow' }
  const bottom = box.y + box.height // exclusive
  const band = Math.max(1, Math.round(box.height * FOOTPRINT_SHARE))
  let fx0 = W
  let fx1 = -1
  for (let y = bottom - band; y < bottom; y++) {
    for (let x = box.x, i = (y * W + box.x) * 4 + 3; x < box.x + box.width; x++, i += 4) {
      if (placed[i]! >= SUBJECT_ALPHA_THRESHOLD) {
        if (x < fx0) fx0 = x
        if (x > fx1) fx1 = x
      }
    }
  }
  const footprint = fx1 - fx0 + 1
  const rx = Math.max(2, Math.max(footprint / 2, box.width * 0.3) * 1.1)
  const ry = Math.max(1.5, rx * FLATNESS)
  const sigma = Math.max(0.8, rx * SOFTNESS)
  const opacity = OPACITY_MIN + OPACITY_SPAN * Math.min(1, footprint / box.width)
  const cx = (fx0 + fx1 + 1) / 2
  const cy = bottom - ry * 0.3 // mostly under the base; the subject covers the rest

  const pad = Math.ceil(3 * sigma)
  const left = Math.floor(cx - rx) - pad
  const top = Math.floor(cy - ry) - pad
  const w = Math.ceil(cx + rx) + pad - left
  const h = Math.ceil(cy + ry) + pad - top
  const ellipse = Buffer.alloc(w * h)
  for (let y = 0; y < h; y++) {
    const dy = (top + y + 0.5 - cy) / ry
    for (let x = 0; x < w; x++) {
      const dx = (left + x + 0.5 - cx) / rx
      const d2 = dx * dx + dy * dy
      if (d2 < 1) ellipse[y * w + x] = Math.round(255 * opacity * (1 - d2))
    }
  }
  const { data: soft, info } = await sharp(ellipse, { raw: { width: w, height: h, channels: 1 } })
    .blur(sigma)
    .extractChannel(0) // keep one channel (sharp would write RGB)
    .raw()
    .toBuffer({ resolveWithObject: true })
  if (info.channels !== 1 || soft.length !== w * h) throw new JobFailure('pipeline_error', `shadow blur gave ${info.channels} channels`)

  // Keep the part on the canvas.
  const x0 = Math.max(0, left)
  const y0 = Math.max(0, top)
  const x1 = Math.min(W, left + w)
  const y1 = Math.min(H, top + h)
  if (x1 <= x0 || y1 <= y0) return { ok: false, reason: 'the shadow would fall outside the canvas' }
  const lw = x1 - x0
  const lh = y1 - y0
  const data = Buffer.alloc(lw * lh * 4) // black
  for (let y = 0; y < lh; y++) {
    for (let x = 0; x < lw; x++) data[(y * lw + x) * 4 + 3] = soft[(y + y0 - top) * w + (x + x0 - left)]!
  }
  return { ok: true, layer: { data, left: x0, top: y0, width: lw, height: lh } }
}
