/**
 * The touch-up editor's preview (docs/review.md "Touch-up"): a job's cutout with a hint's
 * strokes, at most `TOUCHUP_PREVIEW_EDGE` pixels on its long side, without running the model.
 *
 * The stored input is decoded once per editing session in the decode sandbox (untrusted bytes,
 * as a job's) and scaled down; each stroke then costs the hint's decode (in the sandbox too),
 * the hint applied as a job applies it (`applyHint`, its refine off the thread) on the small
 * image with the model's mask from the mask cache, and a PNG encode; the result without strokes
 * is made once per session. The mask is the model's 1024² grid
 * whatever the image's size, so the preview applies the strokes as the saved job will.
 * `refine=detail` previews as `edges` (its second model run is left to Save).
 *
 * Look-again boxes (docs/review.md "Look again") do run the model: once per box, on its crop of
 * the full-size image (decoded again for it, and kept while the session is open), as the saved
 * job does; the crop's mask is kept per box, so later strokes cost no model run, and it is
 * applied to the preview's scaled pixels. They are bounded as a job's are (`fitRegions`: at most
 * `MAX_REGIONS` boxes covering the photo's area once between them, else 422 naming `regions`),
 * and a session keeps the runs of at most `KEPT_LOOKS` boxes, so that drawing box after box
 * does not hold a mask per box ever drawn.
 */
import { readFile } from 'node:fs/promises'
import sharp from 'sharp'
import { TOUCHUP_PREVIEW_EDGE, type TouchUpPreview } from '../../../shared/touchup'
import type { JobParams } from '../../../shared/params-types'
import { ApiError } from '../errors'
import { fitRegions, MAX_REGIONS, type RegionBox } from '../../../shared/regions'
import { applyHint, applyLooks, computeAlpha, lookRuns, maskModelKey, refined } from '../pipeline/alpha'
import type { LookRun } from '../pipeline/look-again'
import { makeCutout } from '../pipeline/cutout'
import type { DecodedImage } from '../pipeline/decode'
import { hasStrokes, type AlphaPixels, type HintPlane } from '../pipeline/hint'
import type { HintDecodeRequest } from '../pipeline/hint-decode'
import { MODEL_SIZE } from '../pipeline/mask'
import type { ModelPool } from '../models/pool'
import type { ModelRegistry } from '../models/registry'
import { inputHash, type CachedMask, type MaskCache } from '../store/mask-cache'

export interface HintPreviewDeps {
  decode(bytes: Buffer): Promise<DecodedImage>
  decodeHint(request: HintDecodeRequest): Promise<HintPlane>
  maskCache: MaskCache
  models: ModelRegistry
  modelPool: ModelPool
}

/** What to preview: a job's stored input (or the file it was made from), its model and parameters. */
export interface PreviewSource {
  /** Names the editing session (a job id): the decoded image is kept while it is edited. */
  key: string
  inputPath: string
  /** The registry name of the model that made the job's mask. */
  model: string
  params: Pick<JobParams, 'alpha' | 'refine'>
}

interface Session {
  key: string
  width: number
  height: number
  small: DecodedImage
  mask: CachedMask | null
  photo: string
  /** The cutout without strokes (an opaque photo's), made at the first preview. */
  plain?: Promise<AlphaPixels>
  /** The input's bytes, and the full-size image once a box needs it. */
  input: Buffer
  full?: Promise<DecodedImage>
  /** The model's run on each box's crop, by the box. */
  looks: Map<string, Promise<LookRun[]>>
}

/** Editing sessions kept decoded (an editor open, and the one before it). */
const SESSIONS = 2
/** Boxes whose model runs a session keeps: those of one preview, and as many drawn before (an undo brings them back without a run). */
const KEPT_LOOKS = 2 * MAX_REGIONS

export class HintPreviews {
  private sessions: Array<Promise<Session>> = []
  private keys: string[] = []

  constructor(private readonly deps: HintPreviewDeps) {}

  /**
   * The cutout with `hint` (PNG/JPEG/WebP bytes at the preview's size), or without strokes when
   * null, and with the look-again `regions` (in the input's upright pixels).
   */
  async preview(source: PreviewSource, hint: Buffer | null, regions: readonly RegionBox[] = []): Promise<TouchUpPreview> {
    const session = await this.session(source)
    const fitted = fitRegions(regions, session.width, session.height)
    if (!fitted.ok) throw new ApiError('validation_failed', 'The look-again boxes cannot be used.', { details: [{ field: 'regions', issue: fitted.issue }] })
    const started = performance.now()
    const { small } = session
    const plane = hint ? await this.deps.decodeHint({ bytes: hint, width: small.width, height: small.height }) : undefined
    // Without a mask (`alpha=keep` on a photo with its own transparency) no model runs, and boxes change nothing, as in a job.
    const runs = session.mask ? (await Promise.all(fitted.boxes.map((box) => this.look(session, source.model, box)))).flat() : []
    forgetLooks(session, fitted.boxes)
    const looks = { runs, full: { width: session.width, height: session.height } }
    // The mask is handed over as the model's: nothing here can run the model.
    const mask = session.mask
    const segmenter = {
      segment: async (): Promise<Buffer> => {
        throw new Error('the preview does not run the model')
      },
      segmentAtModelSize: async () => ({ mask: mask!.data, width: mask!.width, height: mask!.height, inferenceMs: 0 }),
      modelKey: 'preview'
    }
    const refine = source.params.refine === 'detail' ? 'edges' : source.params.refine
    let alpha: AlphaPixels
    if (mask && !small.hasAlpha) {
      // An opaque photo: the result without strokes is the same for every stroke, so it is made once.
      session.plain ??= refined(small, mask, { segmenter }, { refine })
      const plain = await session.plain
      const strokes = plane && hasStrokes(plane) ? plane : null
      alpha = strokes ? await applyHint(small, mask, plain, strokes, { segmenter }, { refine }) : plain
      if (runs.length > 0) alpha = await applyLooks(small, alpha, runs, looks.full, { segmenter }, { refine }, strokes)
    } else {
      alpha = await computeAlpha(small, Buffer.alloc(0), { segmenter }, { alpha: source.params.alpha, refine }, undefined, plane, looks)
    }
    const rgba = makeCutout({ data: alpha.foreground, width: small.width, height: small.height, channels: 4 }, alpha.alpha)
    const png = await sharp(rgba, { raw: { width: small.width, height: small.height, channels: 4 } }).png({ compressionLevel: 1 }).toBuffer()
    return {
      width: session.width,
      height: session.height,
      preview: { width: small.width, height: small.height },
      png: png.toString('base64'),
      ...(hint ? {} : { photo: session.photo }),
      ms: Math.round(performance.now() - started)
    }
  }

  private session(source: PreviewSource): Promise<Session> {
    const at = this.keys.indexOf(source.key)
    if (at >= 0) return this.sessions[at]!
    const made = this.open(source)
    this.keys.unshift(source.key)
    this.sessions.unshift(made)
    this.keys.length = Math.min(this.keys.length, SESSIONS)
    this.sessions.length = Math.min(this.sessions.length, SESSIONS)
    // A failed opening is not kept: the next call tries again.
    made.catch(() => {
      const i = this.sessions.indexOf(made)
      if (i >= 0) {
        this.sessions.splice(i, 1)
        this.keys.splice(i, 1)
      }
    })
    return made
  }

  private async open(source: PreviewSource): Promise<Session> {
    const input = await readFile(source.inputPath).catch(() => {
      throw new ApiError('not_found', 'The original of this file is no longer kept; process it again to touch it up.')
    })
    const image = await this.deps.decode(input)
    const mask = source.params.alpha === 'keep' && image.hasAlpha ? null : await this.modelMask(source.model, input, image)
    const scale = Math.min(1, TOUCHUP_PREVIEW_EDGE / Math.max(image.width, image.height))
    const width = Math.max(1, Math.round(image.width * scale))
    const height = Math.max(1, Math.round(image.height * scale))
    const raw = { raw: { width: image.width, height: image.height, channels: 4 as const } }
    const data = scale === 1 ? image.data : await sharp(image.data, raw).resize(width, height, { fit: 'fill' }).raw().toBuffer()
    const small: DecodedImage = { data, width, height, channels: 4, hasAlpha: image.hasAlpha, warnings: [] }
    const photo = await sharp(data, { raw: { width, height, channels: 4 } }).png({ compressionLevel: 1 }).toBuffer()
    return { key: source.key, width: image.width, height: image.height, small, mask, photo: photo.toString('base64'), input, looks: new Map() }
  }

  /** The model's run on `box`'s crop of the full-size image (none for a box over the whole frame), made once per session. */
  private look(session: Session, model: string, box: RegionBox): Promise<LookRun[]> {
    const key = lookKey(box)
    let made = session.looks.get(key)
    if (!made) {
      made = (async () => {
        const decoding = (session.full ??= this.deps.decode(session.input))
        decoding.catch(() => session.full === decoding && (session.full = undefined))
        const full = await decoding
        const segmenter = await this.acquire(model)
        try {
          return await lookRuns(full, [box], segmenter)
        } finally {
          this.deps.modelPool.release(segmenter)
        }
      })()
      session.looks.set(key, made)
      // A failed run is not kept: the next preview tries again.
      made.catch(() => session.looks.get(key) === made && session.looks.delete(key))
    } else {
      // Used again: the newest of the kept, the last `forgetLooks` drops.
      session.looks.delete(key)
      session.looks.set(key, made)
    }
    return made
  }

  private async acquire(model: string): Promise<Awaited<ReturnType<ModelPool['acquire']>>> {
    if (!this.deps.models.get(model)) throw new ApiError('not_found', `The model ${model} that made this cutout is no longer installed.`)
    return this.deps.modelPool.acquire(model)
  }

  /** The model's mask of the input: from the mask cache; on a miss (swept) the model runs once and the cache keeps it. */
  private async modelMask(model: string, input: Buffer, image: DecodedImage): Promise<CachedMask> {
    const registered = this.deps.models.get(model)
    if (!registered) throw new ApiError('not_found', `The model ${model} that made this cutout is no longer installed.`)
    // The key the model's session gives its masks (`Segmenter.modelKey`).
    const key = maskModelKey(registered.builtin ? `isnet-${registered.variant}` : this.deps.models.modelId(registered))
    const hash = inputHash(input)
    const cached = await this.deps.maskCache.get(hash, key)
    if (cached) return cached
    const segmenter = await this.deps.modelPool.acquire(model)
    try {
      const { mask } = await this.deps.maskCache.getOrCompute(hash, maskModelKey(segmenter.modelKey), async () => {
        const r = await segmenter.segmentAtModelSize(image)
        return { data: r.mask, width: r.width ?? MODEL_SIZE, height: r.height ?? MODEL_SIZE }
      })
      return mask
    } finally {
      this.deps.modelPool.release(segmenter)
    }
  }
}

function lookKey(box: RegionBox): string {
  return `${box.x},${box.y},${box.width},${box.height}`
}

/** Drops the oldest kept runs past `KEPT_LOOKS`, never those of `current` (the boxes just previewed). */
function forgetLooks(session: Session, current: readonly RegionBox[]): void {
  const keep = new Set(current.map(lookKey))
  for (const key of session.looks.keys()) {
    if (session.looks.size <= KEPT_LOOKS) return
    if (!keep.has(key)) session.looks.delete(key)
  }
}
