/**
 * A remove.bg request as an upload of the engine (docs/api.md "remove.bg compatibility", the
 * mapping table): `mode=params` with a parameter set built from the fields, the output format,
 * and for `roi` a hint image (black outside the region: "remove"). What the engine's parameter
 * set cannot say is left to `answer.ts`: the background image, `channels=alpha`, `zip`, and the
 * size cap of a cropped result.
 */
import sharp from 'sharp'
import type { OutputFormat, Variation } from '../../../shared/api'
import type { UploadInput } from '../../engine/public'
import { badField } from './errors'
import type { Length, RemoveBgOptions } from './fields'
import type { ImageBytes } from './source'

export interface Plan {
  /** The engine's output format for the job. */
  outputFormat: OutputFormat
  /** The variation that is the answer (before a background image is laid under it). */
  primary: Variation
  /** The answer's own format: what `format` resolves to. */
  answerFormat: 'png' | 'jpg' | 'webp' | 'zip'
  /** The pixels the answer may have (remove.bg's `size`); null: the product's own limits. */
  cap: number | null
}

/** `value` of a length along an edge of `edge` pixels. */
function px(l: Length, edge: number): number {
  return Math.round(l.unit === '%' ? (l.value / 100) * edge : l.value)
}

/** The hint that keeps the model out of everything outside the region of interest. */
async function roiHint(roi: NonNullable<RemoveBgOptions['roi']>, size: { width: number; height: number }): Promise<Buffer> {
  const [x1, y1, x2, y2] = [px(roi[0], size.width), px(roi[1], size.height), px(roi[2], size.width), px(roi[3], size.height)]
  if (!(x1 < x2 && y1 < y2 && x2 <= size.width && y2 <= size.height)) {
    throw badField(
      'invalid_roi',
      `roi: the region ${x1} ${y1} ${x2} ${y2} is not a rectangle inside the ${size.width}×${size.height} image`
    )
  }
  // Grey inside leaves each pixel to the model; black outside is a "remove" stroke.
  const inside = await sharp({ create: { width: x2 - x1, height: y2 - y1, channels: 3, background: { r: 128, g: 128, b: 128 } } })
    .png()
    .toBuffer()
  return sharp({ create: { width: size.width, height: size.height, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .composite([{ input: inside, left: x1, top: y1 }])
    .png()
    .toBuffer()
}

/** The long edge that keeps `size` under `cap` pixels (null: it is under already). */
function cappedLongEdge(size: { width: number; height: number }, cap: number | null): number | null {
  if (cap === null || size.width * size.height <= cap) return null
  const k = Math.sqrt(cap / (size.width * size.height))
  return Math.max(1, Math.floor(Math.max(size.width, size.height) * k))
}

/** remove.bg's margin in percent of the subject as ours in percent of the canvas: m / (1 + 2m). */
function marginOf(l: Length): string {
  if (l.unit === 'px') return `${l.value}px`
  const m = l.value / 100
  return `${Math.round((m / (1 + 2 * m)) * 10_000) / 100}%`
}

function resolveFormat(o: RemoveBgOptions): Plan['answerFormat'] {
  if (o.format !== 'auto') return o.format
  if (o.channels === 'alpha') return 'png'
  // PNG when the result is transparent anywhere (remove.bg: "PNG if transparent, else JPG").
  const opaque = o.bgImageUrl !== null || (o.bgColor !== null && (o.bgColor.length === 7 || o.bgColor.endsWith('FF')))
  return opaque ? 'jpg' : 'png'
}

/**
 * The engine upload for `o` on a photo of upright `size` (null: its header could not be read; the
 * engine then refuses the upload itself), and the plan for the answer.
 */
export async function toUpload(
  o: RemoveBgOptions,
  photo: ImageBytes,
  size: { width: number; height: number } | null,
  withBgImage: boolean,
  keyId: string
): Promise<{ input: UploadInput; plan: Plan }> {
  const answerFormat = resolveFormat({ ...o, bgImageUrl: withBgImage ? 'given' : o.bgImageUrl })
  // A background image is laid under the transparent cut-out afterwards; zip needs a PNG alpha.
  const outputFormat: OutputFormat = withBgImage || answerFormat === 'zip' ? 'png' : answerFormat
  const set: Record<string, unknown> = { background: o.bgColor ?? 'transparent', shadow: o.shadow ? 'top' : 'none' }
  const base: Variation = o.bgColor ? 'compose' : 'clipping'
  const primary: Variation = o.channels === 'alpha' ? 'mask' : o.shadow ? 'shadowTop' : base
  // The mask always: it gives the foreground's box (X-Foreground-*), the alpha matte and channels=alpha.
  set.variations = [...new Set<Variation>([base, ...(o.shadow ? (['shadowTop'] as const) : []), 'mask'])]
  set.primary = primary
  if (o.crop) {
    set.crop = 'subject'
    if (o.cropMargin) set.margin = marginOf(o.cropMargin)
  } else if (o.scale !== null && size) {
    // The subject, scaled to `scale` of the canvas, on a canvas of the photo's size (capped).
    const long = cappedLongEdge(size, o.cap)
    const k = long === null ? 1 : long / Math.max(size.width, size.height)
    set.crop = 'subject'
    set.size = `${Math.max(1, Math.round(size.width * k))}x${Math.max(1, Math.round(size.height * k))}`
    set.margin = `${(100 - o.scale) / 2}%`
    set.position = o.position === 'bottom' ? 'bottom' : 'center'
  } else if (size) {
    const long = cappedLongEdge(size, o.cap)
    if (long !== null) set.size = long
  }
  const hint = o.roi && size ? { bytes: await roiHint(o.roi, size) } : undefined
  return {
    input: {
      fields: { mode: 'params', params: set, output_format: outputFormat, delivery_mode: 'url' },
      file: { bytes: photo.bytes, mimeType: photo.mimeType, filename: photo.filename },
      ...(hint && { hint }),
      keyId
    },
    plan: { outputFormat, primary, answerFormat, cap: o.cap }
  }
}
