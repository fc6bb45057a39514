/**
 * The compose step (docs/params.md "Modes and variations"): builds each requested variation from the
 * image and its alpha, all through one placement plan (`placement.ts`):
 *
 * - `clipping`: the subject on a transparent canvas;
 * - `background`: the new background alone (`background.ts`);
 * - `compose`: the subject over the background;
 * - `shadowTop`: `compose` with a contact shadow under the subject (`shadow.ts`), or skipped
 *   (listed in `ignored`, explained in `warnings.shadowTop`) when none can be made;
 * - `mask`: the subject's alpha as a grey image.
 *
 * Asked for layers (PSD output), it also returns each variation's layers: `Background`,
 * `Shadow`, and `Subject` holding the input's own pixels with the alpha as a layer mask.
 */
import type { Variation } from '../../../../shared/api'
import type { JobParams } from '../../../../shared/params-types'
import { JobFailure } from '../../errors'
import { overLimit } from './output-limits'
import { makeBackground } from './background'
import { makeCutout } from './cutout'
import type { DecodedImage } from '../decode/decode'
import type { ToNative } from '../metadata/native-colour'
import { drawOver } from './draw-over'
import { attachNative, composeNative } from './native-compose'
import { alphaBounds, cutSides, extractResized, placeOnCanvas, planPlacement, type Placement } from './placement'
import { makeShadow, shadowSkipReason, type ShadowResult } from './shadow'
import type { ComposedVariation, PsdLayerSpec, RgbaImage } from './variation'

export type { ComposedVariation, PsdLayerSpec } from './variation'

export interface ComposeResult {
  variations: ComposedVariation[]
  warnings: Partial<Record<Variation, string[]>>
  ignored: Variation[]
  /** How the subject was framed on the canvas (a before/after view places the original the same way). */
  placement: Placement
}

export interface ComposeOptions {
  /** Also build each variation's layers (for PSD output). @default false */
  layers?: boolean
  /**
   * Converts sRGB colours into the input's own space: given, each variation also comes in the
   * input's own space and depth when the decode found them (`image.native`).
   */
  toNative?: ToNative
}

const rgba = (data: Buffer, width: number, height: number): RgbaImage => ({ data, width, height, channels: 4 })

/** The alpha of RGBA pixels as an opaque grey RGBA image. */
function alphaAsGrey(image: RgbaImage): RgbaImage {
  const out = Buffer.alloc(image.data.length)
  for (let i = 0; i < out.length; i += 4) {
    const a = image.data[i + 3]!
    out[i] = a
    out[i + 1] = a
    out[i + 2] = a
    out[i + 3] = 255
  }
  return rgba(out, image.width, image.height)
}

/**
 * Whether composing reads the photo's own pixels (`image.data`): for PSD layers (the subject
 * layer keeps them), a blurred-photo background, and an input in its own colour space or depth.
 * Otherwise the cutout is made from the refined colours and the alpha alone.
 */
export function readsPhotoPixels(
  image: Pick<DecodedImage, 'native'>,
  params: Pick<JobParams, 'variations' | 'background'>,
  layers: boolean
): boolean {
  if (layers || image.native) return true
  const background = params.variations.some((v) => v === 'background' || v === 'compose' || v === 'shadowTop')
  return background && params.background.kind === 'blur'
}

export async function composeVariations(
  image: DecodedImage,
  alpha: { alpha: Buffer; foreground: Buffer; source?: 'input' | 'cache' | 'model' },
  params: JobParams,
  opts: ComposeOptions = {}
): Promise<ComposeResult> {
  const size = { width: image.width, height: image.height }
  if (image.data.length < size.width * size.height * 4 && readsPhotoPixels(image, params, opts.layers === true)) {
    throw new JobFailure('pipeline_error', "the photo's pixels were not handed to the compose step")
  }
  const warnings: Partial<Record<Variation, string[]>> = {}
  const note = (v: Variation, message: string): void => {
    const list = warnings[v] ?? []
    warnings[v] = list
    list.push(message)
  }
  const ignored: Variation[] = []
  const want = new Set(params.variations)

  const cutout = makeCutout({ data: alpha.foreground, width: image.width, height: image.height, channels: 4 }, alpha.alpha)
  const subjectBox = alphaBounds(cutout, image.width, image.height, { stride: 4, offset: 3 })
  const cut = cutSides(cutout, image.width, image.height, 4, 3)
  const { placement, warnings: placing } = planPlacement(size, subjectBox, params, cut)
  const { canvas, source, target } = placement
  // The same limits the upload checked where it could (docs/api.md §15); here also for
  // `file_url` inputs and on studio workers, before any canvas is allocated.
  const tooLarge = overLimit({
    canvas,
    variations: params.variations.length,
    pixels: canvas.width * canvas.height * params.variations.length
  })
  if (tooLarge) throw new JobFailure('image_too_large', tooLarge)

  const subject = rgba(await placeOnCanvas(cutout, size, 4, placement), canvas.width, canvas.height)
  const background =
    want.has('background') || want.has('compose') || want.has('shadowTop')
      ? await makeBackground(params.background, image, placement)
      : null
  let shadow: ShadowResult | null = null
  if (want.has('shadowTop')) {
    const reason = shadowSkipReason(cutout, image.width, image.height, subjectBox, cut, 4, 3)
    shadow = reason ? { ok: false, reason } : await makeShadow(subject.data, canvas)
  }

  // PSD layers: the subject keeps the input's own pixels, the alpha goes into its layer mask.
  let subjectLayer: PsdLayerSpec | null = null
  let backgroundLayer: PsdLayerSpec | null = null
  if (opts.layers) {
    const pixels = await extractResized(image.data, size, 4, source, target.width, target.height)
    const mask = await extractResized(alpha.alpha, size, 1, source, target.width, target.height)
    subjectLayer = { name: 'Subject', image: rgba(pixels, target.width, target.height), left: target.x, top: target.y, mask }
    if (background) backgroundLayer = { name: 'Background', image: background, left: 0, top: 0 }
  }
  const layers = (...list: Array<PsdLayerSpec | null>): PsdLayerSpec[] | undefined =>
    opts.layers ? list.filter((l): l is PsdLayerSpec => l !== null) : undefined

  const over = (...parts: Array<{ data: Buffer; width: number; height: number; left?: number; top?: number }>): RgbaImage => {
    const out = Buffer.from(background!.data)
    for (const p of parts) drawOver(out, canvas.width, canvas.height, p.data, p.width, p.height, p.left ?? 0, p.top ?? 0)
    return rgba(out, canvas.width, canvas.height)
  }

  const variations: ComposedVariation[] = []
  for (const variation of params.variations) {
    switch (variation) {
      case 'clipping':
        variations.push({ variation, image: subject, layers: layers(subjectLayer) })
        break
      case 'background':
        variations.push({ variation, image: background!, layers: layers(backgroundLayer) })
        break
      case 'compose':
        variations.push({ variation, image: over(subject), layers: layers(backgroundLayer, subjectLayer) })
        break
      case 'shadowTop': {
        if (!shadow?.ok) {
          ignored.push(variation)
          note(variation, `not made: ${shadow?.reason ?? 'no shadow'}`)
          break
        }
        const s = shadow.layer
        const shadowLayer: PsdLayerSpec = { name: 'Shadow', image: rgba(s.data, s.width, s.height), left: s.left, top: s.top }
        variations.push({ variation, image: over(s, subject), layers: layers(backgroundLayer, shadowLayer, subjectLayer) })
        break
      }
      case 'mask': {
        const grey = alphaAsGrey(subject)
        variations.push({ variation, image: grey, greyscale: true, layers: layers({ name: 'Mask', image: grey, left: 0, top: 0 }) })
        break
      }
      default: {
        const never: never = variation
        throw new JobFailure('pipeline_error', `unknown variation ${String(never)}`)
      }
    }
  }
  // How the subject was framed goes with the main file: the primary, or what stands in for a
  // skipped one (compose, else the first made), so that it is read where the file is.
  const main = !ignored.includes(params.primary)
    ? params.primary
    : variations.some((v) => v.variation === 'compose')
      ? 'compose'
      : (variations[0]?.variation ?? params.primary)
  for (const w of placing) note(main, w)
  if (image.native && opts.toNative) {
    const input = {
      image,
      alpha: alpha.alpha,
      foreground: alpha.foreground,
      placement,
      background,
      shadow: shadow?.ok ? shadow.layer : null,
      toNative: opts.toNative,
      alphaFromInput: alpha.source === 'input',
      layers: opts.layers
    }
    try {
      attachNative(
        variations,
        await composeNative(
          input,
          variations.map((v) => v.variation)
        )
      )
    } catch (err) {
      // A profile colours cannot be converted into: the outputs are sRGB, as for any input.
      if (!(err instanceof JobFailure) || err.reason !== 'pipeline_error') throw err
      note(params.primary, `colour: ${err.message}; the output is in sRGB`)
    }
  }
  return { variations, warnings, ignored, placement }
}
