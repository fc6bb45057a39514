/**
 * The variations again, in the input's own colour space and depth (`source-info.ts`), when its
 * pixels are more than 8-bit sRGB. The 8-bit compose step decides everything — the alpha, the
 * placement, the background, the shadow; this replays its drawing on the input's own pixels:
 *
 * - the subject's colours are the input's own wherever the edge refinement left them as they
 *   were (everywhere inside the subject), and the refined edge colours brought into the
 *   input's space where it changed them;
 * - for a 16-bit input the 8-bit alpha is made 16-bit smoothly: inside the soft edge each value
 *   is the mean of its 5×5 neighbourhood, so a ramp that 8 bits draw as steps comes out as a
 *   ramp (0 and full opacity stay exact);
 * - backgrounds (colour or blur) are made in sRGB as for every output, then converted (`native-colour.ts`);
 * - the shadow is black, the same in every RGB space.
 */
import type { Variation } from '../../../../shared/api'
import { JobFailure } from '../../errors'
import type { DecodedImage } from '../decode/decode'
import { drawOver } from './draw-over'
import type { ToNative } from '../metadata/native-colour'
import { widen } from '../metadata/native-colour'
import { blit, isIdentity, type Placement, type Rect } from './placement'
import type { ShadowLayer } from './shadow'
import sharp from 'sharp'
import type { ComposedVariation, NativeImage, RgbaImage } from './variation'

/** Half-width of the window that smooths the alpha's soft edge into 16 bits. */
const SMOOTH_RADIUS = 2

export interface NativeComposeInput {
  image: DecodedImage
  /** The subject's final alpha (1 channel, 8-bit, image size). */
  alpha: Buffer
  /** The refined colours (8-bit sRGB RGBA, image size). */
  foreground: Buffer
  placement: Placement
  background: RgbaImage | null
  shadow: ShadowLayer | null
  toNative: ToNative
  /** The alpha is the input's own (`alpha=keep`): a 16-bit input keeps its 16-bit alpha. */
  alphaFromInput?: boolean
  /** Also give the PSD layers' pixels. */
  layers?: boolean
}

export interface NativeCompose {
  images: Partial<Record<Variation, NativeImage>>
  /** The `Subject` layer: the input's own pixels of the placed part, at the target's size (with `layers`). */
  subjectLayer: NativeImage | null
  /** The background, whole canvas. */
  backdrop: NativeImage | null
}

type Words = Uint8Array | Uint16Array
/** A channel's full value at each depth. */
const FULL = { 8: 255, 16: 65535 } as const

function view(data: Buffer, depth: 8 | 16): Words {
  return depth === 16 ? new Uint16Array(data.buffer, data.byteOffset, data.length / 2) : data
}

/** Each variation's image in the input's space and depth (the `mask` variation excepted: it has no colour). */
export async function composeNative(input: NativeComposeInput, variations: Variation[]): Promise<NativeCompose> {
  const { image, alpha, foreground, placement, background, shadow, toNative } = input
  const native = image.native
  if (!native) throw new JobFailure('pipeline_error', 'composeNative needs the native pixels')
  const { depth } = native
  const icc = image.metadata?.icc ?? null
  const { width, height } = image
  const target = { icc, depth }

  // The subject: the input's own colours, the refined ones where the refinement changed them.
  const changed = foreground !== image.data && differs(foreground, image.data)
  const refined = changed ? view(await toNative(foreground, width, height, target), depth) : null
  const cutout = Buffer.from(native.data)
  const px = view(cutout, depth)
  const keepAlpha = input.alphaFromInput === true
  const smooth = depth === 16 && !keepAlpha ? smoothAlpha(alpha, width, height) : null
  for (let i = 0, o = 0; i < alpha.length; i++, o += 4) {
    if (
      refined &&
      (foreground[o] !== image.data[o] || foreground[o + 1] !== image.data[o + 1] || foreground[o + 2] !== image.data[o + 2])
    ) {
      px[o] = refined[o]!
      px[o + 1] = refined[o + 1]!
      px[o + 2] = refined[o + 2]!
    }
    if (!keepAlpha) px[o + 3] = smooth ? smooth[i]! : alpha[i]!
  }
  const canvas = placement.canvas
  const subject = await placeNative(cutout, depth, image, placement)
  const backdrop = background ? await toNative(background.data, canvas.width, canvas.height, target) : null
  const make = (data: Buffer): NativeImage => ({ data, width: canvas.width, height: canvas.height, depth, icc })
  const { source, target: rect } = placement
  const subjectLayer = input.layers
    ? {
        data: await extractNative(native.data, depth, image, source, rect.width, rect.height),
        width: rect.width,
        height: rect.height,
        depth,
        icc
      }
    : null
  const over = (withShadow: boolean): NativeImage => {
    const out = Buffer.from(backdrop!)
    if (withShadow && shadow) {
      const layer = depth === 16 ? widen(shadow.data) : shadow.data
      drawOver(
        view(out, depth),
        canvas.width,
        canvas.height,
        view(layer, depth),
        shadow.width,
        shadow.height,
        shadow.left,
        shadow.top,
        FULL[depth]
      )
    }
    drawOver(view(out, depth), canvas.width, canvas.height, view(subject, depth), canvas.width, canvas.height, 0, 0, FULL[depth])
    return make(out)
  }

  const images: Partial<Record<Variation, NativeImage>> = {}
  for (const v of variations) {
    if (v === 'clipping') images[v] = make(subject)
    else if (v === 'background' && backdrop) images[v] = make(backdrop)
    else if (v === 'compose' && backdrop) images[v] = over(false)
    else if (v === 'shadowTop' && backdrop && shadow) images[v] = over(true)
  }
  return { images, subjectLayer, backdrop: backdrop ? make(backdrop) : null }
}

/** Whether two RGBA buffers differ in any colour channel. */
function differs(a: Buffer, b: Buffer): boolean {
  for (let i = 0; i < a.length; i += 4) {
    if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) return true
  }
  return false
}

/**
 * 16-bit alpha from the 8-bit one: exact at 0 and 255, the 5×5 mean (of v·257) inside the
 * soft edge, so the edge's steps of 1/255 become a smooth ramp.
 */
export function smoothAlpha(alpha: Buffer, width: number, height: number): Uint16Array {
  const out = new Uint16Array(alpha.length)
  const r = SMOOTH_RADIUS
  for (let y = 0; y < height; y++) {
    for (let x = 0, i = y * width; x < width; x++, i++) {
      const a = alpha[i]!
      if (a === 0 || a === 255) {
        out[i] = a * 257
        continue
      }
      let sum = 0
      let count = 0
      for (let yy = Math.max(0, y - r); yy <= Math.min(height - 1, y + r); yy++) {
        for (let xx = Math.max(0, x - r), j = yy * width + xx; xx <= Math.min(width - 1, x + r); xx++, j++) {
          sum += alpha[j]!
          count++
        }
      }
      // Stay strictly inside (0, 65535): a soft pixel is neither gone nor solid.
      out[i] = Math.min(65534, Math.max(1, Math.round((sum * 257) / count)))
    }
  }
  return out
}

/** `extractResized` for RGBA at either depth: `rect` of the image, at `width`×`height`. */
async function extractNative(
  data: Buffer,
  depth: 8 | 16,
  image: { width: number; height: number },
  rect: Rect,
  width: number,
  height: number
): Promise<Buffer> {
  const bpp = depth / 2 // bytes per RGBA pixel: 4 or 8
  if (rect.width === width && rect.height === height) {
    if (rect.x === 0 && rect.y === 0 && width === image.width && height === image.height) return data
    const part = Buffer.alloc(width * height * bpp)
    for (let row = 0; row < height; row++) {
      const from = ((rect.y + row) * image.width + rect.x) * bpp
      data.copy(part, row * width * bpp, from, from + width * bpp)
    }
    return part
  }
  const raw = { width: image.width, height: image.height, channels: 4 as const }
  const input = depth === 16 ? new Uint16Array(data.buffer, data.byteOffset, data.length / 2) : data
  let pipeline = sharp(input, { raw })
    .extract({ left: rect.x, top: rect.y, width: rect.width, height: rect.height })
    .resize(width, height, { fit: 'fill' })
  if (depth === 16) pipeline = pipeline.toColourspace('rgb16')
  const part = await pipeline.raw({ depth: depth === 16 ? 'ushort' : 'uchar' }).toBuffer()
  if (part.length !== width * height * bpp) throw new JobFailure('pipeline_error', 'resizing the native pixels gave the wrong size')
  return part
}

/** `placeOnCanvas` for RGBA at either depth. */
async function placeNative(data: Buffer, depth: 8 | 16, image: { width: number; height: number }, p: Placement): Promise<Buffer> {
  if (isIdentity(p, image)) return data
  const { source, target, canvas } = p
  const bpp = depth / 2
  const part = await extractNative(data, depth, image, source, target.width, target.height)
  const out = Buffer.alloc(canvas.width * canvas.height * bpp)
  blit(part, target.width, out, canvas.width, target.x, target.y, target.width, target.height, bpp)
  return out
}

/** Gives each variation (and its PSD layers) its pixels in the input's own space. */
export function attachNative(variations: ComposedVariation[], natives: NativeCompose): void {
  for (const v of variations) {
    v.native = natives.images[v.variation]
    if (!v.native) continue
    const { depth } = v.native
    for (const layer of v.layers ?? []) {
      if (layer.name === 'Subject') layer.native = natives.subjectLayer ?? undefined
      else if (layer.name === 'Background') layer.native = natives.backdrop ?? undefined
      else if (layer.name === 'Shadow') {
        // Black, its alpha the shadow: the same numbers in every RGB space.
        const data = depth === 16 ? widen(layer.image.data) : layer.image.data
        layer.native = { ...v.native, data, width: layer.image.width, height: layer.image.height }
      }
    }
  }
}
