/**
 * The alpha step, segment and refine: the subject's alpha at the image's full size, and the
 * colours to composite with it (docs/pipeline.md). It runs the segmentation unit (`engine/segment/`)
 * and then the refine step and the guides on its mask.
 *
 * - `alpha=keep` and an input with a real alpha channel: that alpha, no model.
 * - Otherwise the model's mask and the second look its setting asks for (`segment/look/model-mask.ts`,
 *   docs/pipeline.md "Second look"), each from the mask cache passed in (`AlphaDeps.maskCache`)
 *   when the same input was seen with the same model, else from the segmenter (and then cached).
 * - `refine=edges` (default): guided-filter edges at full resolution and foreground colours
 *   without the old background's fringe (`refine.ts`). `refine=none`: the mask upscaled.
 *   Either refines the model's mask with a solid subject's broad half-transparent inside made
 *   opaque (`workingMask`, `solid.ts`); `refine=none` upscales the mask as the model gave it.
 * - With the model: how much the cutout needs a person's look (`uncertainty.ts`,
 *   docs/review.md), from the mask delivered (after any second look) and the final alpha.
 * - A hint (`hint.ts`, docs/touch-up.md "Hints"): its strokes set on the result, the edges refined
 *   again within a band around them; the cached mask stays the model's own.
 * - Look-again boxes (`look-again.ts`, docs/touch-up.md "Look again"): the model again on each
 *   box's crop, its result inside the box; the strokes win over it. Only the first run's mask
 *   is cached.
 */
import { createHash } from 'node:crypto'
import { secondLookSetting, type JobParams } from '../../../shared/params-types'
import type { DecodedImage } from './decode/decode'
import type { RenderAlpha } from './compose/render'
import { changedStrokes, constrainMask, hasStrokes, hintBand, mergeHinted, type AlphaPixels, type HintPlane } from './guide/hint'
import { cellsUnder, grown, type Region } from '../segment/mask/region'
import { cropInput, lookAgain, mergeLooks, wholeFrame, type FinishCrop, type LookBox, type LookRun } from './guide/look-again'
import { upscaleMask } from '../segment/mask/mask'
import type { MaskPlane, MaskSource, MaskStore } from '../segment/mask/types'
import { refineReach, resizeMask } from './refine/refine'
import { refineOffThread } from './refine/refine-thread'
import { solidMask } from './refine/solid'
import { uncertainty } from '../segment/mask/uncertainty'
import type { SecondLook } from '../segment/look/second-look'
import { lookedAgain, modelMask } from '../segment/look/model-mask'

export interface AlphaDeps {
  segmenter: MaskSource
  /** Masks by input content + model; without it every job runs the model. */
  maskCache?: MaskStore
  /**
   * Refine on the spare refine thread (`refineOffThread`): the touch-up preview's crops, refined
   * beside the whole photo on the jobs' thread. Jobs leave it unset and keep to one thread.
   */
  spareRefine?: boolean
}

export interface AlphaResult extends RenderAlpha {
  /**
   * 0 (sure) to 1 (check this): see docs/review.md. 0 for `alpha=keep` with a real alpha (the
   * user gave the alpha; no model ran).
   */
  uncertainty: number
  /** The second look this photo got (docs/pipeline.md "Second look"), or null for none. */
  secondLook: SecondLook | null
}

export const KEEP_WITHOUT_ALPHA_WARNING = 'alpha=keep: the input has no transparency, so the model made the mask'

export async function computeAlpha(
  image: DecodedImage,
  input: Buffer,
  deps: AlphaDeps,
  params: Pick<JobParams, 'alpha' | 'refine' | 'look'>,
  signal?: AbortSignal,
  hint?: HintPlane,
  regions: readonly LookBox[] | LookSet = []
): Promise<AlphaResult> {
  const warnings: string[] = []
  const strokes = hint && hasStrokes(hint) ? hint : null
  if (params.alpha === 'keep') {
    if (image.hasAlpha) {
      const kept = keepInputAlpha(image)
      // The user's own alpha: the strokes are set on it, nothing is refined.
      return strokes ? { ...kept, ...mergeHinted(kept, kept, strokes, image.data, 0) } : kept
    }
    warnings.push(KEEP_WITHOUT_ALPHA_WARNING)
  }
  const first = await modelMask(image, input, deps.segmenter, deps.maskCache, signal)
  signal?.throwIfAborted()
  const setting = secondLookSetting(params)
  const { mask: looked, look } = await lookedAgain(image, input, first.mask, deps.segmenter, setting, deps.maskCache, signal)
  const source = look && !look.cached ? 'model' : first.source
  signal?.throwIfAborted()

  const mask = workingMask(looked, image, params)
  let { alpha, foreground } = await refined(image, mask, deps, params, signal)
  if (strokes) ({ alpha, foreground } = await applyHint(image, mask, { alpha, foreground }, strokes, deps, params, signal))
  const looks = isLookSet(regions) ? regions : { runs: await lookRuns(image, regions, deps.segmenter, signal), full: image }
  if (looks.runs.length > 0)
    ({ alpha, foreground } = await applyLooks(image, { alpha, foreground }, looks.runs, looks.full, deps, params, strokes, signal))
  if (image.hasAlpha) ({ alpha, foreground } = foldInputAlpha(image, alpha, foreground))
  const secondLook = look ? { views: look.views, reason: look.reason } : null
  return {
    alpha,
    foreground,
    warnings,
    source,
    uncertainty: uncertainty(mask, { data: alpha, width: image.width, height: image.height }),
    secondLook
  }
}

/**
 * The mask the refine step works from: the model's, with a solid subject's broad half-transparent
 * inside made opaque and half-transparent structures apart from it dropped (`solid.ts`; the photo
 * says which regions are see-through), unless `refine=none`. The touch-up preview starts from it too, so it shows what a job delivers.
 */
export function workingMask(mask: MaskPlane, image: DecodedImage, params: Pick<JobParams, 'refine'>): MaskPlane {
  return params.refine === 'none' ? mask : solidMask(mask, image)
}

/**
 * The strokes of a hint on `plain` (the alpha and colours made from `mask` without them): the
 * refine step again on a copy of the model's mask that takes the strokes, merged within a band
 * around them. The model's mask stays as the cache holds it (docs/touch-up.md "Hints"). The
 * touch-up editor's preview calls it with the plain result it keeps, and with its last result
 * (`before`): then only the strokes added or taken back since are refined.
 *
 * A stroke moves the result only within the band around it (where the strokes are merged) and
 * the refine's reach beyond that (what its constrained cells change), so the refine works only
 * there (`within`): what a stroke costs follows its own size, not the subject's outline.
 */
export async function applyHint(
  image: DecodedImage,
  mask: MaskPlane,
  plain: AlphaPixels,
  strokes: HintPlane,
  deps: AlphaDeps,
  params: Pick<JobParams, 'refine'>,
  signal?: AbortSignal,
  before?: HintedPixels
): Promise<AlphaPixels> {
  const { width, height } = image
  const changed = changedStrokes(before?.strokes ?? null, strokes)
  if (!changed) return before?.result ?? plain
  const band = hintBand(width, height)
  // A stroke pixel sets the mask cells it covers, and each of those reaches the guide grid's
  // cells around it: a few model cells more.
  const cell = Math.ceil(Math.max(width / mask.width, height / mask.height))
  const reach = refineReach(width, height)
  const area = grown(changed, band + reach + 3 * cell + 4, width, height)
  // The refine reads the mask within its reach of the soft band within its reach of `area`:
  // only those cells need the strokes.
  const cells = cellsUnder(grown(area, 2 * reach + 3 * cell + 4, width, height), width / mask.width, height / mask.height)
  const hinted = await refined(image, constrainMask(mask, strokes, cells), deps, params, signal, area)
  return mergeHinted(plain, hinted, strokes, image.data, band, { onto: before?.result ?? plain, area })
}

/** A result with a hint's strokes, and the strokes it was made with (`applyHint`'s `before`). */
export interface HintedPixels {
  strokes: HintPlane
  result: AlphaPixels
}

/** Look-again runs made already (the touch-up editor's preview: from the full-size image, applied to its scaled copy). */
export interface LookSet {
  runs: readonly LookRun[]
  /** The size the runs' boxes and crops are in. */
  full: { width: number; height: number }
}

function isLookSet(r: readonly LookBox[] | LookSet): r is LookSet {
  return !Array.isArray(r)
}

/** The model on each box's crop of the full-size `image`, in order; a box over the whole frame shows it the photo it already saw, and is left out. */
export async function lookRuns(
  image: DecodedImage,
  boxes: readonly LookBox[],
  source: MaskSource,
  signal?: AbortSignal
): Promise<LookRun[]> {
  const runs: LookRun[] = []
  for (const box of boxes) if (!wholeFrame(box, image.width, image.height)) runs.push(await lookAgain(image, box, source, signal))
  return runs
}

/**
 * The look-again runs on `base` (the result with the strokes): each crop refined as a photo of
 * its own with the strokes inside it, inside its box. `full` is the size the runs' boxes are
 * in; `image` may be its scaled copy (the touch-up editor's preview). `kept`: the crops'
 * results kept by their masks between calls (the preview's editing session): the one without
 * strokes, and the last with strokes by the strokes inside the crop, so a stroke that does not
 * reach a crop costs it nothing.
 */
export function applyLooks(
  image: DecodedImage,
  base: AlphaPixels,
  runs: readonly LookRun[],
  full: { width: number; height: number },
  deps: AlphaDeps,
  params: Pick<JobParams, 'refine'>,
  strokes: HintPlane | null,
  signal?: AbortSignal,
  kept?: CropResults
): Promise<AlphaPixels> {
  return mergeLooks(image, base, runs, full, cropFinish(deps, params, signal, kept), strokes, signal)
}

/**
 * Each run's crop result made now and kept in `kept`, without the base: the touch-up preview
 * starts them beside the whole photo's stroke refine (the two refines run at once), and
 * `applyLooks` then finds them made. Rejects as `applyLooks` would.
 */
export async function startLooks(
  image: DecodedImage,
  runs: readonly LookRun[],
  full: { width: number; height: number },
  deps: AlphaDeps,
  params: Pick<JobParams, 'refine'>,
  strokes: HintPlane | null,
  kept: CropResults,
  signal?: AbortSignal
): Promise<void> {
  const finish = cropFinish(deps, params, signal, kept)
  await Promise.all(
    runs.map((run) => {
      const c = cropInput(image, run, full, strokes)
      return finish(c.image, run.mask, c.strokes)
    })
  )
}

/** A crop's result: refined as a photo of its own, with the strokes inside it; kept in `kept` by its mask when given. */
function cropFinish(deps: AlphaDeps, params: Pick<JobParams, 'refine'>, signal: AbortSignal | undefined, kept?: CropResults): FinishCrop {
  // `refine=detail` is already this: a second model run on a crop.
  const cropParams = { refine: params.refine === 'detail' ? ('edges' as const) : params.refine }
  return async (crop, mask, cropStrokes) => {
    const entry = kept?.get(mask) ?? {}
    kept?.set(mask, entry)
    const once = (made: Promise<AlphaPixels>, forget: () => void): Promise<AlphaPixels> => {
      made.catch(forget)
      return made
    }
    entry.plain ??= once(refined(crop, mask, deps, cropParams, signal), () => {
      entry.plain = undefined
    })
    const plain = entry.plain
    if (!cropStrokes || !hasStrokes(cropStrokes)) return plain
    const key = createHash('sha1').update(cropStrokes.data).digest('hex')
    if (entry.hinted?.key !== key) {
      // From the crop's last result with strokes: only the strokes changed since are refined.
      const last = entry.hinted
      const made = once(
        plain.then(async (p) => {
          const result = await last?.made.catch(() => undefined)
          const before = last && result ? { strokes: last.strokes, result } : undefined
          return applyHint(crop, mask, p, cropStrokes, deps, cropParams, signal, before)
        }),
        () => {
          if (entry.hinted?.made === made) entry.hinted = undefined
        }
      )
      entry.hinted = { key, strokes: cropStrokes, made }
    }
    return entry.hinted.made
  }
}

/** A crop's results kept between calls by its mask (`applyLooks`): without strokes, and the last with them (by a hash of the strokes inside it). */
export type CropResults = WeakMap<
  MaskPlane,
  { plain?: Promise<AlphaPixels>; hinted?: { key: string; strokes: HintPlane; made: Promise<AlphaPixels> } }
>

/**
 * The refine step on a mask (`refine=edges`/`detail`), or the mask upscaled (`refine=none`).
 * `within`: the only pixels the caller reads (`RefineOptions.within`).
 */
export async function refined(
  image: DecodedImage,
  mask: MaskPlane,
  deps: AlphaDeps,
  params: Pick<JobParams, 'refine'>,
  signal?: AbortSignal,
  within?: Region
): Promise<AlphaPixels> {
  if (params.refine !== 'none') return refineOffThread(image, mask, signal, deps.spareRefine, within)
  const alpha = deps.segmenter.segmentAtModelSize
    ? await upscaleMask(mask.data, image.width, image.height, mask.width, mask.height)
    : await resizeMask(mask, image.width, image.height)
  return { alpha, foreground: image.data }
}

/** `alpha=keep`: the input's own alpha; the colours as they are, made opaque. */
function keepInputAlpha(image: DecodedImage): AlphaResult {
  const n = image.width * image.height
  const alpha = Buffer.allocUnsafe(n)
  const foreground = Buffer.from(image.data)
  for (let i = 0, a = 3; i < n; i++, a += 4) {
    alpha[i] = foreground[a]!
    foreground[a] = 255
  }
  return { alpha, foreground, warnings: [], source: 'input', uncertainty: 0, secondLook: null }
}

/**
 * An input with transparency and a model mask: pixels the input already made transparent stay
 * so whatever the model says (their colour is often meaningless). The input's alpha moves into
 * `alpha` (rounded m·a/255) and the colours become opaque, so the two are not applied twice.
 */
function foldInputAlpha(image: DecodedImage, mask: Buffer, colours: Buffer): { alpha: Buffer; foreground: Buffer } {
  const n = image.width * image.height
  const alpha = Buffer.allocUnsafe(n)
  const foreground = colours === image.data ? Buffer.from(colours) : colours
  for (let i = 0, a = 3; i < n; i++, a += 4) {
    const ia = image.data[a]!
    alpha[i] = ia === 255 ? mask[i]! : Math.round((mask[i]! * ia) / 255)
    foreground[a] = 255
  }
  return { alpha, foreground }
}
