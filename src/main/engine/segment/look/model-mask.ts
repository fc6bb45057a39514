/**
 * The model's mask of a photo, as the alpha step starts from it (docs/pipeline.md): the first look
 * (the model once on the whole photo, at its size) and the second look its setting asks for
 * (`second-look.ts`). Each is kept in the mask cache the caller passes in, by the input's content
 * hash and the model's key, the second beside the first under its setting's key, so the same
 * photo again costs no run.
 */
import type { SecondLookSetting } from '../../../../shared/params-types'
import { contentHash } from '../../content-hash'
import { MODEL_SIZE, type SegmentInput } from '../mask/mask'
import type { ModelVariant } from '../mask/model'
import type { MaskPlane, MaskSource, MaskStore } from '../mask/types'
import { lookReason, plan, secondLook, type SecondLook } from './second-look'

/**
 * Version of the cached masks' meaning: bump when the model input (resize, normalisation) or
 * output quantisation changes, so old entries stop matching.
 */
const MASK_FORMAT_VERSION = 1

/**
 * Version of what a second look makes of the same views (the merge, the surest regions, what is
 * kept): bump when that rule changes, so a photo looked at under the old rule is looked at again.
 */
const LOOK_VERSION = 2

/** The cache's key of the mask a second look made under `setting`, beside the first's (`model`: `maskModelKey`'s). */
export function lookMaskKey(model: string, setting: SecondLookSetting): string {
  return `${model}+look=${setting}/${LOOK_VERSION}`
}

/** The cache's `model` key for a variant (or a registry model's key). */
export function maskModelKey(variant: ModelVariant | string): string {
  return `${variant === 'small' || variant === 'medium' ? `isnet-${variant}` : variant}/${MASK_FORMAT_VERSION}`
}

/** The first look: cached, or from the source (model size when it can, else full size). */
export async function modelMask(
  image: SegmentInput,
  input: Buffer,
  source: MaskSource,
  cache?: MaskStore,
  signal?: AbortSignal
): Promise<{ mask: MaskPlane; source: 'cache' | 'model' }> {
  if (!source.segmentAtModelSize) {
    return { mask: { data: await source.segment(image, signal), width: image.width, height: image.height }, source: 'model' }
  }
  const run = async (): Promise<MaskPlane> => {
    const r = await source.segmentAtModelSize!(image, signal)
    return { data: r.mask, width: r.width ?? MODEL_SIZE, height: r.height ?? MODEL_SIZE }
  }
  const key = source.modelKey ?? source.variant
  if (!cache || !key) return { mask: await run(), source: 'model' }
  const { mask, hit } = await cache.getOrCompute(contentHash(input), maskModelKey(key), run)
  return { mask, source: hit ? 'cache' : 'model' }
}

/**
 * The mask after the second look the setting asks for (`second-look.ts`), or the first when none.
 * Cached beside the first mask under the setting's key.
 */
export async function lookedAgain(
  image: SegmentInput,
  input: Buffer,
  first: MaskPlane,
  source: MaskSource,
  setting: SecondLookSetting,
  cache?: MaskStore,
  signal?: AbortSignal
): Promise<{ mask: MaskPlane; look: (SecondLook & { cached: boolean }) | null }> {
  const reason = lookReason(first, setting, image.width, image.height)
  if (!reason) return { mask: first, look: null }
  const key = source.segmentAtModelSize ? (source.modelKey ?? source.variant) : undefined
  const run = async (): Promise<MaskPlane> => (await secondLook(image, first, source, setting, signal))!.mask
  const views = plan(first, image.width, image.height, reason).length
  if (!cache || !key) return { mask: await run(), look: { views, reason, cached: false } }
  const { mask, hit } = await cache.getOrCompute(contentHash(input), lookMaskKey(maskModelKey(key), setting), run)
  return { mask, look: { views, reason, cached: hit } }
}
