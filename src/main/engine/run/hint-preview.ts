/**
 * The touch-up editor's preview (docs/touch-up.md "Touch-up"): a job's cutout with a hint's
 * strokes, at most `TOUCHUP_PREVIEW_EDGE` pixels on its long side, without running the model.
 *
 * The stored input is decoded once per editing session in the decode sandbox (untrusted bytes,
 * as a job's) and scaled down; each stroke then costs the hint's decode (in the sandbox too),
 * the hint applied as a job applies it (`applyHint`, its refine off the thread) on the small
 * image with the model's mask from the mask cache, and a PNG encode; the result without strokes
 * is made once per session, and each preview starts from the last one's result, so a stroke
 * refines only its own neighbourhood. The mask is the one the job delivered — the model's 1024²
 * grid, or the mask its second look made (cached beside it) — whatever the image's size, so the
 * preview applies the strokes as the saved job will. `refine=detail` previews as `edges`.
 *
 * Look-again boxes (docs/touch-up.md "Look again") do run the model: once per box, on its crop of
 * the full-size image (the one decoded when the editor opened, kept for the newest session), as
 * the saved job does. The crop's mask is kept by job, box and model (`crop-masks.ts`) and the
 * crop's results per session (`CropResults`), so a stroke after a box costs no model run and
 * refines the crop again only when the strokes inside it change, at the same time as the whole
 * photo's refine (`startLooks`, a second refine thread). Opening the editor loads the
 * model's session if the pool let it go, so that a first box costs one model run.
 * They are bounded as a job's are (`checkRegions`, `intake/regions.ts`: at most `MAX_REGIONS` boxes covering the
 * photo's area once between them, else `validation_failed` naming `regions`).
 */
import { readFile } from 'node:fs/promises'
import sharp from 'sharp'
import { TOUCHUP_PREVIEW_EDGE, type TouchUpPreview } from '../../../shared/touchup'
import { secondLookSetting, type JobParams, type SecondLookSetting } from '../../../shared/params-types'
import type { RegionBox } from '../../../shared/regions'
import { EngineError } from '../errors'
import { checkRegions } from '../intake/regions'
import {
  applyHint,
  applyLooks,
  computeAlpha,
  lookRuns,
  workingMask,
  refined,
  startLooks,
  type CropResults,
  type HintedPixels
} from '../pipeline/segment-and-refine'
import { lookMaskKey, maskModelKey } from '../segment/look/model-mask'
import type { LookRun } from '../pipeline/guide/look-again'
import { makeCutout } from '../pipeline/compose/cutout'
import type { DecodedImage } from '../pipeline/decode/decode'
import { hasStrokes, type AlphaPixels, type HintPlane } from '../pipeline/guide/hint'
import type { HintDecodeRequest } from '../pipeline/guide/hint-decode'
import { MODEL_SIZE } from '../segment/mask/mask'
import type { ModelPool } from '../segment/models/pool'
import type { ModelRegistry } from '../segment/models/registry'
import type { CachedMask, MaskCache } from '../store/mask-cache'
import { CropMasks } from './crop-masks'
import { contentHash } from '../content-hash'

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
  params: Pick<JobParams, 'alpha' | 'refine' | 'look'>
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
  /** The last cutout with strokes and its strokes: the next stroke refines only what changed since. */
  hinted?: Promise<HintedPixels>
  /** The input's bytes, and the full-size image: kept from the opening while this is the newest session, decoded again for a box otherwise. */
  input: Buffer
  full?: Promise<DecodedImage>
  /** Each box's crop results on the preview's pixels, by the crop's mask (from `CropMasks`). */
  crops: CropResults
}

/** Editing sessions kept decoded (an editor open, and the one before it). */
const SESSIONS = 2

export class HintPreviews {
  private sessions: Array<Promise<Session>> = []
  private keys: string[] = []
  private readonly cropMasks = new CropMasks<LookRun[]>()

  constructor(private readonly deps: HintPreviewDeps) {}

  /**
   * The cutout with `hint` (PNG/JPEG/WebP bytes at the preview's size), or without strokes when
   * null, and with the look-again `regions` (in the input's upright pixels).
   */
  async preview(source: PreviewSource, hint: Buffer | null, regions: readonly RegionBox[] = []): Promise<TouchUpPreview> {
    const session = await this.session(source)
    const boxes = checkRegions(regions, session)
    const started = performance.now()
    const { small } = session
    const plane = hint ? await this.deps.decodeHint({ bytes: hint, width: small.width, height: small.height }) : undefined
    // Without a mask (`alpha=keep` on a photo with its own transparency) no model runs, and boxes change nothing, as in a job.
    const runs = session.mask ? (await Promise.all(boxes.map((box) => this.look(session, source.model, box)))).flat() : []
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
      // The boxes' crops refined with their strokes beside the whole photo's (on a second refine
      // thread), not after it: a stroke after a box costs about what one without does.
      const crops =
        runs.length > 0 ? startLooks(small, runs, looks.full, { segmenter, spareRefine: true }, { refine }, strokes, session.crops) : null
      crops?.catch(() => undefined) // the error is applyLooks' to give
      if (strokes) {
        const before = await session.hinted?.catch(() => undefined)
        const made = applyHint(small, mask, plain, strokes, { segmenter }, { refine }, undefined, before)
        session.hinted = made.then((result) => ({ strokes, result }))
        session.hinted.catch(() => undefined) // this call gives the error
        alpha = await made
      } else {
        session.hinted = undefined
        alpha = plain
      }
      if (runs.length > 0)
        alpha = await applyLooks(small, alpha, runs, looks.full, { segmenter }, { refine }, strokes, undefined, session.crops)
    } else {
      // The mask is the one the job delivered: no second look here.
      alpha = await computeAlpha(
        small,
        Buffer.alloc(0),
        { segmenter },
        { alpha: source.params.alpha, refine, look: 'off' },
        undefined,
        plane,
        looks
      )
    }
    const rgba = makeCutout({ data: alpha.foreground, width: small.width, height: small.height, channels: 4 }, alpha.alpha)
    const png = await sharp(rgba, { raw: { width: small.width, height: small.height, channels: 4 } })
      .png({ compressionLevel: 1 })
      .toBuffer()
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
    // Only the newest session keeps its full-size image (tens of MB for a large photo).
    for (const older of this.sessions) void older.then((s) => (s.full = undefined)).catch(() => undefined)
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
      throw new EngineError('not_found', 'The original of this file is no longer kept; process it again to touch it up.')
    })
    const image = await this.deps.decode(input)
    const mask =
      source.params.alpha === 'keep' && image.hasAlpha
        ? null
        : workingMask(await this.modelMask(source.model, input, image, secondLookSetting(source.params)), image, source.params)
    const scale = Math.min(1, TOUCHUP_PREVIEW_EDGE / Math.max(image.width, image.height))
    const width = Math.max(1, Math.round(image.width * scale))
    const height = Math.max(1, Math.round(image.height * scale))
    const raw = { raw: { width: image.width, height: image.height, channels: 4 as const } }
    const data = scale === 1 ? image.data : await sharp(image.data, raw).resize(width, height, { fit: 'fill' }).raw().toBuffer()
    const small: DecodedImage = { data, width, height, channels: 4, hasAlpha: image.hasAlpha, warnings: [] }
    const photo = await sharp(data, { raw: { width, height, channels: 4 } })
      .png({ compressionLevel: 1 })
      .toBuffer()
    return {
      key: source.key,
      width: image.width,
      height: image.height,
      small,
      mask,
      photo: photo.toString('base64'),
      input,
      full: Promise.resolve(image),
      crops: new WeakMap()
    }
  }

  /** The model's run on `box`'s crop of the full-size image (none for a box over the whole frame), made once per job, box and model. */
  private look(session: Session, model: string, box: RegionBox): Promise<LookRun[]> {
    return this.cropMasks.get({ job: session.key, model, box }, async () => {
      session.full ??= this.deps.decode(session.input)
      const decoding = session.full
      decoding.catch(() => {
        if (session.full === decoding) session.full = undefined
      })
      const full = await decoding
      const segmenter = await this.acquire(model)
      try {
        return await lookRuns(full, [box], segmenter)
      } finally {
        this.deps.modelPool.release(segmenter)
      }
    })
  }

  private async acquire(model: string): Promise<Awaited<ReturnType<ModelPool['acquire']>>> {
    if (!this.deps.models.get(model)) throw new EngineError('not_found', `The model ${model} that made this cutout is no longer installed.`)
    return this.deps.modelPool.acquire(model)
  }

  /**
   * The model's session loaded while the user paints, when the pool has let it go (5 minutes
   * idle after the batch): a first look-again box then costs its model run, not the session's
   * load too. Nothing waits for it; a failure shows at the box's own run.
   */
  private warm(model: string): void {
    const pool = this.deps.modelPool
    if (pool.status(model)) return
    pool.acquire(model).then(
      (s) => pool.release(s),
      () => undefined
    )
  }

  /**
   * The mask the job delivered: the one its second look made when it got one (kept beside the
   * model's under the job's `look` setting, docs/pipeline.md "Second look"), else the model's;
   * from the mask cache; on a miss (swept) the model runs once and the cache keeps its mask.
   */
  private async modelMask(model: string, input: Buffer, image: DecodedImage, look: SecondLookSetting): Promise<CachedMask> {
    const registered = this.deps.models.get(model)
    if (!registered) throw new EngineError('not_found', `The model ${model} that made this cutout is no longer installed.`)
    // The key the model's session gives its masks (`Segmenter.modelKey`).
    const key = maskModelKey(registered.builtin ? `isnet-${registered.variant}` : this.deps.models.modelId(registered))
    const hash = contentHash(input)
    const looked = look === 'off' ? null : await this.deps.maskCache.get(hash, lookMaskKey(key, look))
    if (looked) {
      this.warm(model)
      return looked
    }
    const cached = await this.deps.maskCache.get(hash, key)
    if (cached) {
      this.warm(model)
      return cached
    }
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
