/**
 * `npm run bench:touchup -- [--corpus <dir>] [--limit N] [--strokes N] [--composites N]
 * [--mask-cache <dir>]`: how long the touch-up editor's preview takes per stroke (docs/touch-up.md
 * "Touch-up"), on corpus photos, with the real engine (decode sandbox, mask cache, refine
 * thread). Each photo runs once as a job (the model makes its mask, which the cache keeps), then
 * the editor is opened on it and strokes are added one by one, keep and remove in turn: each
 * stroke is a disc painted on the preview-sized hint, encoded as PNG (as the editor sends it)
 * and previewed. Prints JSON: per photo and over all strokes, the preview's time (median, p90)
 * as the caller sees it and as the app measured it, the editor's opening, and the machine.
 *
 * Then a look-again box (the photo's middle third) is added: its first preview runs the model
 * on the box's crop of the full-size image (`box_preview_ms`), set beside one model run on the
 * same crop measured right after it (`model_run_on_crop_ms`, and the ratio). Then
 * BOX_STROKES more strokes, each previewed with the box kept (`stroke_after_box_ms`: the crop's
 * mask reused) and without it (`stroke_without_box_ms`, in an editing session of its own), in
 * turn.
 *
 * `box_iou` (`touchup-box-iou.ts`): on composites with a known alpha, the IoU inside a box with
 * the box and without it.
 * Needs `npx electron-vite build` (the sandbox).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import sharp from 'sharp'
import { Engine } from '../src/main/engine/engine'
import { BUILTIN_MODELS } from '../src/main/engine/segment/models/registry'
import { sampleImage } from '../src/main/engine/segment/models/service'
import { lookRuns } from '../src/main/engine/pipeline/segment-and-refine'
import { Segmenter } from '../src/main/engine/segment/mask/mask'
import { JobEnds } from '../src/main/outputs/engine-jobs'
import { corpusDir, corpusFiles, loadAverage, machine, median, options, positiveInt, ROOT, round } from './lib'
import { boxIou } from './touchup-box-iou'

/** Strokes previewed with and without the box, in turn, after the box's first preview. */
const BOX_STROKES = 4

const quantile = (values: number[], q: number): number => {
  const s = [...values].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN
}
const figures = (ms: number[]): { median: number; p90: number; max: number } => ({
  median: round(median(ms), 1),
  p90: round(quantile(ms, 0.9), 1),
  max: round(Math.max(...ms), 1)
})

/**
 * A session of the engine's default model, the bench's own, on the device the engine would use
 * (a new data folder's default is a built-in model), run once so that it is warm: the model runs
 * measured beside the app's.
 */
async function ownSession(engine: Engine): Promise<Segmenter> {
  const info = engine.modelService.list().find((m) => m.isDefault)!
  const builtin = BUILTIN_MODELS[info.name]
  if (!builtin) throw new Error(`the default model ${info.name} is not a built-in one`)
  const segmenter = await Segmenter.create({ variant: builtin.variant, device: info.device })
  await segmenter.segmentAtModelSize(sampleImage())
  return segmenter
}

/** A deterministic sequence in [0, 1). */
function lcg(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

export async function main(args: string[]): Promise<number> {
  const opts = options(args)
  const dir = corpusDir(opts.get('corpus'))
  const files = corpusFiles(dir, positiveInt(opts.get('limit'), 5, '--limit'))
  const composites = opts.has('composites') ? Number(opts.get('composites')) : 6
  if (!Number.isInteger(composites) || composites < 0)
    throw new Error(`--composites must be a whole number ≥ 0, got ${opts.get('composites')}`)
  const strokes = positiveInt(opts.get('strokes'), 12, '--strokes')
  // This checkout's sandbox (the bundle runs from the shared node_modules, beside another build).
  process.env.CLIPDESK_SANDBOX_SCRIPT ??= join(ROOT, 'out', 'main', 'decode-child.js')
  const dataDir = mkdtempSync(join(tmpdir(), 'clipdesk-bench-touchup-'))
  const engine = new Engine({ dataDir })
  engine.start()
  const segmenter = await ownSession(engine)
  const previews = engine.hintPreviews()
  const ends = new JobEnds(engine)
  const photos: unknown[] = []
  const all: number[] = []
  const inApp: number[] = []
  const looks: number[] = []
  const modelRuns: number[] = []
  const ratios: number[] = []
  const afterBox: number[] = []
  const withoutBox: number[] = []
  let iou: unknown = null
  try {
    for (const file of files) {
      const bytes = await readFile(file)
      const { job_id: jobId } = await engine
        .upload({ fields: { output_format: 'png' }, file: { bytes, mimeType: null, filename: basename(file) }, keyId: null })
        .catch((err: Error) => {
          throw new Error(`${file}: ${err.message}`)
        })
      await ends.wait(jobId)
      const job = engine.job(jobId)!
      if (job.status !== 'done') throw new Error(`${file}: the job ended ${job.status}: ${job.errorMessage ?? ''}`)
      const source = { key: jobId, inputPath: job.inputPath!, model: job.model!, params: engine.jobParamSet(jobId)! }
      let t = performance.now()
      const opened = await previews.preview(source, null)
      const openMs = performance.now() - t
      const { width, height } = opened.preview
      const hint = Buffer.alloc(width * height, 128)
      const next = lcg(width * 31 + height)
      const radius = Math.max(6, Math.round(Math.max(width, height) / 60))
      const ms: number[] = []
      const app: number[] = []
      const encode: number[] = []
      const paint = (s: number): void => {
        // A short drag: discs along a line, keep and remove in turn.
        const [x0, y0] = [next() * width, next() * height]
        const [dx, dy] = [(next() - 0.5) * width * 0.2, (next() - 0.5) * height * 0.2]
        const value = s % 2 === 0 ? 255 : 0
        for (let k = 0; k <= 10; k++) {
          const cx = x0 + (dx * k) / 10
          const cy = y0 + (dy * k) / 10
          for (let y = Math.max(0, Math.floor(cy - radius)); y < Math.min(height, Math.ceil(cy + radius)); y++) {
            for (let x = Math.max(0, Math.floor(cx - radius)); x < Math.min(width, Math.ceil(cx + radius)); x++) {
              if ((x - cx) ** 2 + (y - cy) ** 2 <= radius * radius) hint[y * width + x] = value
            }
          }
        }
      }
      for (let s = 0; s < strokes; s++) {
        paint(s)
        t = performance.now()
        const png = await sharp(hint, { raw: { width, height, channels: 1 } })
          .png({ compressionLevel: 1 })
          .toBuffer()
        encode.push(performance.now() - t)
        t = performance.now()
        const preview = await previews.preview(source, png)
        ms.push(performance.now() - t)
        app.push(preview.ms)
      }
      // A look-again box over the middle third, in the photo's own pixels.
      const box = {
        x: Math.floor(opened.width / 3),
        y: Math.floor(opened.height / 3),
        width: Math.max(16, Math.floor(opened.width / 3)),
        height: Math.max(16, Math.floor(opened.height / 3))
      }
      const png = await sharp(hint, { raw: { width, height, channels: 1 } })
        .png({ compressionLevel: 1 })
        .toBuffer()
      t = performance.now()
      await previews.preview(source, png, [box])
      const lookMs = performance.now() - t
      // One model run on the same crop, as the box's first preview made it (the session warm).
      if (job.model !== engine.defaultModel()) throw new Error(`${file}: the job ran ${job.model}, not the default model`)
      const full = await engine.decodeImage(bytes)
      t = performance.now()
      await lookRuns(full, [box], segmenter)
      const runMs = performance.now() - t
      // The strokes without the box in an editing session of their own (the same job and photo):
      // each session previews every stroke from its own last result, so neither call finds the
      // other's refine done. It starts where the box's session is, untimed.
      const apart = { ...source, key: `${jobId} without the box` }
      await previews.preview(apart, png)
      const after: number[] = []
      const without: number[] = []
      for (let s = 0; s < BOX_STROKES; s++) {
        paint(strokes + s)
        const png = await sharp(hint, { raw: { width, height, channels: 1 } })
          .png({ compressionLevel: 1 })
          .toBuffer()
        // In turn first, so neither gains from the other's warm caches.
        for (const withIt of s % 2 === 0 ? [true, false] : [false, true]) {
          t = performance.now()
          await (withIt ? previews.preview(source, png, [box]) : previews.preview(apart, png))
          ;(withIt ? after : without).push(performance.now() - t)
        }
      }
      looks.push(lookMs)
      modelRuns.push(runMs)
      ratios.push(lookMs / runMs)
      afterBox.push(...after)
      withoutBox.push(...without)
      all.push(...ms)
      inApp.push(...app)
      photos.push({
        file: basename(file),
        size: [opened.width, opened.height],
        preview: [width, height],
        open_ms: round(openMs, 1),
        stroke_ms: figures(ms),
        stroke_ms_in_app: figures(app),
        hint_png_encode_ms: figures(encode),
        box_preview_ms: round(lookMs, 1),
        model_run_on_crop_ms: round(runMs, 1),
        stroke_after_box_ms: figures(after),
        stroke_without_box_ms: figures(without)
      })
    }
    if (composites > 0) iou = await boxIou(segmenter, join(dir, '..', 'reference'), corpusFiles(dir), composites, opts.get('mask-cache'))
  } finally {
    ends.close()
    await segmenter.close()
    await engine.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  console.log(
    JSON.stringify(
      {
        machine: machine(),
        load_average: loadAverage(),
        photos: files.length,
        strokes_per_photo: strokes,
        stroke_ms: figures(all),
        stroke_ms_in_app: figures(inApp),
        box_preview_ms: figures(looks),
        model_run_on_crop_ms: figures(modelRuns),
        box_preview_over_model_run: { median: round(median(ratios), 2), max: round(Math.max(...ratios), 2) },
        stroke_after_box_ms: figures(afterBox),
        stroke_without_box_ms: figures(withoutBox),
        box_iou: iou,
        by_photo: photos
      },
      null,
      2
    )
  )
  return 0
}
