/**
 * The quality benchmark's mask source: the real segmenter, with an optional cache of its masks
 * on disk (`--mask-cache <dir>`, keyed by a hash of the pixels) so that refine methods can be
 * compared again without running the model again. Each run's inference time is kept with its
 * mask, so a cached run still reports what the model cost.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { resolveOptions } from '../src/main/engine/options'
import type { MaskSource } from '../src/main/engine/segment/mask/types'
import { MODEL_SIZE, Segmenter, upscaleMask, type ModelRun, type SegmentInput } from '../src/main/engine/segment/mask/mask'
import type { ModelVariant } from '../src/main/engine/segment/mask/model'
import { corpusDir, loadAverage, positiveInt } from './lib'

/** What `bench:quality` and `bench:review` share at start: the options they both take, the session and its mask source. */
export interface QualityRun {
  variant: ModelVariant
  limit: number | undefined
  /** The corpus folder, and its reference cutouts beside it. */
  dir: string
  refDir: string
  loadStart: number[]
  segmenter: Segmenter
  source: CountingSource
}

export async function openQualityRun(opt: { get(name: string): string | undefined; has(name: string): boolean }): Promise<QualityRun> {
  const variant = (opt.get('variant') ?? resolveOptions({ dataDir: '' }).modelVariant) as ModelVariant
  if (variant !== 'small' && variant !== 'medium') throw new Error(`--variant must be small or medium, got ${variant}`)
  const limit = opt.has('limit') ? positiveInt(opt.get('limit'), 0, '--limit') : undefined
  const dir = corpusDir(opt.get('corpus'))
  const loadStart = loadAverage()
  const segmenter = await Segmenter.create({ variant })
  return {
    variant,
    limit,
    dir,
    refDir: join(dir, '..', 'reference'),
    loadStart,
    segmenter,
    source: maskSource(segmenter, opt.get('mask-cache'))
  }
}

export interface CountingSource extends MaskSource {
  segmentAtModelSize: NonNullable<MaskSource['segmentAtModelSize']>
  /** The runs since the last reset: their model milliseconds (inside the session) and whether they came from a cache. */
  calls: Array<{ inferenceMs: number; cached: boolean }>
  reset(): void
}

/** Masks kept in memory (the same composite goes through several refine settings in turn). */
const MEMORY_ENTRIES = 4

export function maskSource(segmenter: Segmenter, cacheDir: string | undefined): CountingSource {
  if (cacheDir) mkdirSync(cacheDir, { recursive: true })
  const memory = new Map<string, ModelRun>()
  const src: CountingSource = {
    variant: segmenter.variant,
    calls: [],
    reset() {
      src.calls = []
    },
    async segmentAtModelSize(image: SegmentInput, signal?: AbortSignal): Promise<ModelRun> {
      let run: ModelRun | null = null
      let cached = true
      const key = createHash('sha256')
        .update(`${segmenter.variant}:${image.width}x${image.height}x${image.channels}:`)
        .update(image.data)
        .digest('hex')
        .slice(0, 32)
      const file = cacheDir ? join(cacheDir, key) : ''
      run = memory.get(key) ?? null
      if (!run && cacheDir && existsSync(`${file}.json`)) {
        const meta = JSON.parse(await readFile(`${file}.json`, 'utf8')) as { inferenceMs: number }
        run = { mask: await readFile(`${file}.mask`), inferenceMs: meta.inferenceMs }
      }
      if (!run || run.mask.length !== MODEL_SIZE * MODEL_SIZE) {
        run = await segmenter.segmentAtModelSize(image, signal)
        cached = false
        if (cacheDir) {
          await writeFile(`${file}.mask`, run.mask)
          await writeFile(`${file}.json`, JSON.stringify({ inferenceMs: run.inferenceMs }))
        }
      }
      memory.set(key, run)
      if (memory.size > MEMORY_ENTRIES) memory.delete(memory.keys().next().value!)
      src.calls.push({ inferenceMs: run.inferenceMs, cached })
      return run
    },
    async segment(image: SegmentInput, signal?: AbortSignal): Promise<Buffer> {
      const { mask } = await src.segmentAtModelSize(image, signal)
      return upscaleMask(mask, image.width, image.height)
    }
  }
  return src
}
