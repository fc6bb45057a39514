/**
 * Placement: where the subject lands on the output canvas (docs/params.md `crop`, `size`, `margin`,
 * `position`). One plan — which part of the input is placed, the canvas size, the rectangle it
 * lands in — then every variation draws through that same plan, so the subject, its mask, its
 * shadow and a blurred background line up.
 *
 * - `crop=subject` places the subject's bounding box (pixels with alpha ≥ 16); `crop=none` the
 *   whole input.
 * - `size=original` keeps the pixels at scale 1 and grows the canvas by the margin;
 *   `size=<W>x<H>` is the canvas, the placed part is scaled (up or down) to fit inside the
 *   margins; `size=<max>` makes the canvas's long edge `max` and its other edge follow the
 *   placed part plus margins.
 * - `margin` is one length or four (top, right, bottom, left); a `%` is a share of the canvas's
 *   width (left/right) and height (top/bottom).
 * - `position` aligns each axis between the margins (`bottom`: centred horizontally, standing
 *   on the bottom margin).
 * - a side where the photo's edge cuts the subject (a torso cut at the bottom) has no margin:
 *   the subject stays on the canvas's edge there, whatever `position` says for that axis.
 * - `upscale=never` never enlarges the placed part; `allow` does, and says so beyond
 *   `UPSCALE_WARN_FACTOR`; `<f>x[,<floor>]` enlarges it at most f×, the canvas shrinking in
 *   proportion to the largest that keeps to it (not under `floor` px on its long edge, where it
 *   is enlarged further and says so).
 */
import sharp from 'sharp'
import {
  marginSides,
  positionAxes,
  upscaleLimit,
  UPSCALE_WARN_FACTOR,
  type JobParams,
  type MarginLength,
  type SizeSpec
} from '../../../../shared/params-types'
import { JobFailure } from '../../errors'

export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

export interface Placement {
  canvas: { width: number; height: number }
  /** The part of the input that is placed (the whole input, or the subject's box). */
  source: Rect
  /** Where `source` lands on the canvas, scaled to this size; always inside the canvas. */
  target: Rect
}

/** Alpha from which a pixel counts as part of the subject (for boxes and edges). */
export const SUBJECT_ALPHA_THRESHOLD = 16

/** The bounding box of pixels whose alpha is ≥ `threshold` (and < `below`); null when there are none. */
export function alphaBounds(
  alpha: Uint8Array,
  width: number,
  height: number,
  opts: { stride?: number; offset?: number; threshold?: number; below?: number } = {}
): Rect | null {
  const { stride = 1, offset = 0, threshold = SUBJECT_ALPHA_THRESHOLD, below = 256 } = opts
  let x0 = width
  let x1 = -1
  let y0 = -1
  let y1 = -1
  for (let y = 0; y < height; y++) {
    let i = y * width * stride + offset
    let rowMin = -1
    let rowMax = -1
    for (let x = 0; x < width; x++, i += stride) {
      const v = alpha[i]!
      if (v >= threshold && v < below) {
        if (rowMin < 0) rowMin = x
        rowMax = x
      }
    }
    if (rowMin < 0) continue
    if (y0 < 0) y0 = y
    y1 = y
    if (rowMin < x0) x0 = rowMin
    if (rowMax > x1) x1 = rowMax
  }
  return y0 < 0 ? null : { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 }
}

type PlacementParams = Pick<JobParams, 'crop' | 'size' | 'margin' | 'position' | 'upscale'>

/** The sides of the photo that cut the subject (docs/params.md "Framing"). */
export interface CutSides {
  top: boolean
  right: boolean
  bottom: boolean
  left: boolean
}

export const NO_CUT: CutSides = { top: false, right: false, bottom: false, left: false }

/**
 * Share of a side's length the subject must cover along the photo's edge for that side to count
 * as cutting it: a torso cut at the bottom covers a third of it; a few stray pixels of the mask
 * touching the edge do not make a cut.
 */
const CUT_SHARE = 0.005

function edgeCovered(alpha: Uint8Array, from: number, step: number, count: number, stride: number, offset: number): boolean {
  const need = Math.max(2, Math.ceil(count * CUT_SHARE))
  let covered = 0
  for (let k = 0, i = from; k < count; k++, i += step) {
    if (alpha[i * stride + offset]! >= SUBJECT_ALPHA_THRESHOLD && ++covered >= need) return true
  }
  return false
}

/** Which edges of the photo the subject runs into (its alpha reaches the border along that side). */
export function cutSides(alpha: Uint8Array, width: number, height: number, stride = 1, offset = 0): CutSides {
  return {
    top: edgeCovered(alpha, 0, 1, width, stride, offset),
    bottom: edgeCovered(alpha, (height - 1) * width, 1, width, stride, offset),
    left: edgeCovered(alpha, 0, width, height, stride, offset),
    right: edgeCovered(alpha, width - 1, width, height, stride, offset)
  }
}

/** One side's margin in pixels on a canvas edge of `length`. */
const px = (m: MarginLength, length: number): number => (m.unit === 'px' ? m.value : (length * m.value) / 100)

/** An axis's margins split into pixels and a share of the canvas (0 on a cut side). */
function axisMargins(a: MarginLength, b: MarginLength, cutA: boolean, cutB: boolean): { fixed: number; share: number } {
  const sides = [cutA ? null : a, cutB ? null : b].filter((m): m is MarginLength => m !== null)
  return {
    fixed: sides.reduce((n, m) => n + (m.unit === 'px' ? m.value : 0), 0),
    share: sides.reduce((n, m) => n + (m.unit === '%' ? m.value / 100 : 0), 0)
  }
}

/** Where a part of `length` goes on an axis of `size`: against a cut side, else as aligned between the margins. */
function alignOn(
  size: number,
  length: number,
  before: number,
  after: number,
  align: 'start' | 'center' | 'end',
  cutBefore: boolean,
  cutAfter: boolean
): number {
  let at: number
  if (cutBefore && !cutAfter) at = 0
  else if (cutAfter && !cutBefore) at = size - length
  else if (cutBefore && cutAfter) at = (size - length) / 2
  else if (align === 'start') at = before
  else if (align === 'end') at = size - after - length
  else at = before + (size - before - after - length) / 2
  return Math.max(0, Math.min(size - length, Math.round(at)))
}

/**
 * The placement of a job's subject. `subject` is the subject's box in the input (null when
 * nothing was found); `crop=subject` without a subject keeps the whole input and says so.
 * `cut`: the photo's sides that cut the subject; each keeps the subject on the canvas's edge,
 * with no margin there.
 */
export function planPlacement(
  image: { width: number; height: number },
  subject: Rect | null,
  params: PlacementParams,
  cut: CutSides = NO_CUT
): { placement: Placement; warnings: string[] } {
  const warnings: string[] = []
  const whole: Rect = { x: 0, y: 0, width: image.width, height: image.height }
  let source = whole
  if (params.crop === 'subject') {
    if (subject) source = subject
    else warnings.push('no subject was found: crop=subject kept the whole image')
  }
  const { width: cw, height: ch } = source
  const { size } = params
  const m = marginSides(params.margin)
  const h = axisMargins(m.left, m.right, cut.left, cut.right)
  const v = axisMargins(m.top, m.bottom, cut.top, cut.bottom)
  // The canvas edge that holds a part of `length` with the axis's margins around it.
  const edgeFor = (length: number, axis: { fixed: number; share: number }): number =>
    Math.max(1, Math.round((length + axis.fixed) / (1 - axis.share)))

  // The canvas a size asks for, and the scale that fills it inside the margins.
  const frame = (size: SizeSpec): { width: number; height: number; scale: number } => {
    switch (size.kind) {
      case 'original':
        return { scale: 1, width: edgeFor(cw, h), height: edgeFor(ch, v) }
      case 'box': {
        const { width, height } = size
        const scale = Math.min(Math.max(1, width * (1 - h.share) - h.fixed) / cw, Math.max(1, height * (1 - v.share) - v.fixed) / ch)
        return { width, height, scale }
      }
      case 'long': {
        // The long edge of the placed part spans the canvas's long edge minus its margins.
        const landscape = cw >= ch
        const axis = landscape ? h : v
        const scale = Math.max(1, size.max * (1 - axis.share) - axis.fixed) / (landscape ? cw : ch)
        return {
          scale,
          width: landscape ? size.max : edgeFor(cw * scale, h),
          height: landscape ? edgeFor(ch * scale, v) : size.max
        }
      }
    }
  }
  let { width, height, scale } = frame(size)
  const limit = upscaleLimit(params.upscale)
  if (limit && scale > limit.max && size.kind !== 'original') {
    // The canvas shrinks in proportion until the part is enlarged no more than the limit
    // (floored, so that rounding never passes it), but not under the floor.
    const long = Math.max(width, height)
    const k = Math.min(1, Math.max(limit.floor / long, limit.max / scale))
    const shrunk: SizeSpec =
      size.kind === 'box'
        ? { kind: 'box', width: Math.max(1, Math.floor(width * k + 1e-6)), height: Math.max(1, Math.floor(height * k + 1e-6)) }
        : { kind: 'long', max: Math.max(1, Math.floor(size.max * k + 1e-6)) }
    ;({ width, height, scale } = frame(shrunk))
  }
  const warnFactor = limit ? limit.max : UPSCALE_WARN_FACTOR
  if (scale > 1 && params.upscale === 'never') {
    // Never enlarged: the part keeps the photo's own size; a canvas given only by its long
    // edge shrinks to it, a <W>x<H> canvas stays as asked.
    scale = 1
    if (size.kind === 'long') {
      width = edgeFor(cw, h)
      height = edgeFor(ch, v)
    }
  } else if (scale > warnFactor + 1e-9) {
    const what = source === whole ? 'photo' : 'subject'
    warnings.push(
      `enlarged ${scale.toFixed(1)}×: the ${what} (${cw}×${ch} px) is small for a ${width}×${height} canvas, so it looks soft; upscale=never keeps its own size`
    )
  }

  const tw = Math.min(width, Math.max(1, Math.round(cw * scale)))
  const th = Math.min(height, Math.max(1, Math.round(ch * scale)))
  const axes = positionAxes(params.position)
  const start = { left: 'start', top: 'start', center: 'center', right: 'end', bottom: 'end' } as const
  const tx = alignOn(width, tw, px(m.left, width), px(m.right, width), start[axes.x], cut.left, cut.right)
  const ty = alignOn(height, th, px(m.top, height), px(m.bottom, height), start[axes.y], cut.top, cut.bottom)
  return { placement: { canvas: { width, height }, source, target: { x: tx, y: ty, width: tw, height: th } }, warnings }
}

/** Whether the plan leaves the input exactly as it is (the plain `clipping` job). */
export function isIdentity(p: Placement, image: { width: number; height: number }): boolean {
  return (
    p.canvas.width === image.width &&
    p.canvas.height === image.height &&
    p.source.x === 0 &&
    p.source.y === 0 &&
    p.source.width === image.width &&
    p.source.height === image.height &&
    p.target.x === 0 &&
    p.target.y === 0 &&
    p.target.width === image.width &&
    p.target.height === image.height
  )
}

/** Copies a w×h block of `channels`-byte pixels from `src` (row length srcW) into `dst` (row length dstW) at (x, y). */
export function blit(
  src: Buffer,
  srcW: number,
  dst: Buffer,
  dstW: number,
  x: number,
  y: number,
  w: number,
  h: number,
  channels: number
): void {
  for (let row = 0; row < h; row++) {
    src.copy(dst, ((y + row) * dstW + x) * channels, row * srcW * channels, (row * srcW + w) * channels)
  }
}

/** The raw pixels of `rect` of an image, resized to `width`×`height` (sharp premultiplies alpha while resizing). */
export async function extractResized(
  data: Buffer,
  image: { width: number; height: number },
  channels: 1 | 4,
  rect: Rect,
  width: number,
  height: number
): Promise<Buffer> {
  if (rect.width === width && rect.height === height) {
    if (rect.x === 0 && rect.y === 0 && rect.width === image.width && rect.height === image.height) return data
    const out = Buffer.alloc(width * height * channels)
    for (let row = 0; row < height; row++) {
      const from = ((rect.y + row) * image.width + rect.x) * channels
      data.copy(out, row * width * channels, from, from + width * channels)
    }
    return out
  }
  let pipeline = sharp(data, { raw: { width: image.width, height: image.height, channels } })
    .extract({ left: rect.x, top: rect.y, width: rect.width, height: rect.height })
    .resize(width, height, { fit: 'fill' })
  // sharp writes a 1-channel input back as RGB unless told to keep the one channel.
  if (channels === 1) pipeline = pipeline.extractChannel(0)
  const { data: out, info } = await pipeline.raw().toBuffer({ resolveWithObject: true })
  if (info.channels !== channels || out.length !== width * height * channels) {
    throw new JobFailure(
      'pipeline_error',
      `resize gave ${info.width}×${info.height}×${info.channels}, expected ${width}×${height}×${channels}`
    )
  }
  return out
}

/**
 * The input's `source` drawn into its `target` on an empty canvas (zeros: transparent RGBA,
 * or a black mask). `channels` 4 for RGBA, 1 for a mask.
 */
export async function placeOnCanvas(
  data: Buffer,
  image: { width: number; height: number },
  channels: 1 | 4,
  p: Placement
): Promise<Buffer> {
  if (isIdentity(p, image)) return data
  const { source, target, canvas } = p
  const part = await extractResized(data, image, channels, source, target.width, target.height)
  const out = Buffer.alloc(canvas.width * canvas.height * channels)
  blit(part, target.width, out, canvas.width, target.x, target.y, target.width, target.height, channels)
  return out
}

/**
 * The input as a whole, mapped through the plan's scale and offset and cut to the canvas:
 * what lies around the subject in the photo, aligned with it (for a blurred background).
 * Where the photo does not reach the canvas's edges it is mirrored outwards.
 */
export async function coverCanvas(data: Buffer, image: { width: number; height: number }, p: Placement): Promise<Buffer> {
  if (isIdentity(p, image)) return data
  const { source, target, canvas } = p
  const sx = target.width / source.width
  const sy = target.height / source.height
  // The canvas's edges in input coordinates, cut to the input.
  const a0 = Math.max(0, Math.floor(source.x - target.x / sx))
  const a1 = Math.min(image.width, Math.ceil(source.x + (canvas.width - target.x) / sx))
  const b0 = Math.max(0, Math.floor(source.y - target.y / sy))
  const b1 = Math.min(image.height, Math.ceil(source.y + (canvas.height - target.y) / sy))
  const left = Math.round(target.x + (a0 - source.x) * sx)
  const top = Math.round(target.y + (b0 - source.y) * sy)
  const rw = Math.max(1, Math.round(target.x + (a1 - source.x) * sx) - left)
  const rh = Math.max(1, Math.round(target.y + (b1 - source.y) * sy) - top)
  const region = await extractResized(data, image, 4, { x: a0, y: b0, width: a1 - a0, height: b1 - b0 }, rw, rh)
  // Cut what falls outside the canvas, then mirror outwards what is missing.
  const cutL = Math.max(0, -left)
  const cutT = Math.max(0, -top)
  const placeL = Math.max(0, left)
  const placeT = Math.max(0, top)
  const visW = Math.max(1, Math.min(rw - cutL, canvas.width - placeL))
  const visH = Math.max(1, Math.min(rh - cutT, canvas.height - placeT))
  const { data: out, info } = await sharp(region, { raw: { width: rw, height: rh, channels: 4 } })
    .extract({ left: Math.min(cutL, rw - visW), top: Math.min(cutT, rh - visH), width: visW, height: visH })
    .extend({
      left: Math.min(placeL, canvas.width - visW),
      top: Math.min(placeT, canvas.height - visH),
      right: Math.max(0, canvas.width - Math.min(placeL, canvas.width - visW) - visW),
      bottom: Math.max(0, canvas.height - Math.min(placeT, canvas.height - visH) - visH),
      extendWith: 'mirror'
    })
    .raw()
    .toBuffer({ resolveWithObject: true })
  if (info.width !== canvas.width || info.height !== canvas.height || info.channels !== 4) {
    throw new JobFailure(
      'pipeline_error',
      `background cover is ${info.width}×${info.height}×${info.channels}, expected ${canvas.width}×${canvas.height}×4`
    )
  }
  return out
}
