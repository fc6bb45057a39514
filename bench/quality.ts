/**
 * `npm run bench:quality -- [--corpus <dir>] [--variant small|medium] [--limit N] [--no-composites]`
 *
 * Cutout quality, printed as JSON (never asserted):
 * - images: each corpus photo through the model and the alpha step, with `refine=edges` and
 *   `refine=none`, against every reference cutout `<dir>/../reference/<name>.<model>.png`:
 *   alpha IoU at threshold 128 and mean |Δalpha| (0–255).
 * - composites: subjects of known colour and alpha (the reference cutouts, and a synthetic
 *   fuzzy subject drawn in code) put over other backgrounds; each composite through the model
 *   and the alpha step. SAD of alpha (Σ|Δα|/255, in thousands, as matting papers give it) and
 *   the colour error of the cutout re-composited on a new background against the truth
 *   re-composited there (mean per channel, 0–255; and the same over the truth's soft band,
 *   where the fringe is), with and without `refine`.
 */
import { existsSync, readdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import sharp from 'sharp'
import { resolveOptions } from '../src/main/engine/options'
import { decodeImage, Segmenter } from '../src/main/engine/pipeline'
import { computeAlpha, type MaskSource } from '../src/main/engine/pipeline/alpha'
import type { DecodedImage } from '../src/main/engine/pipeline/decode'
import type { ModelRun } from '../src/main/engine/pipeline/mask'
import type { ModelVariant } from '../src/main/engine/pipeline/model'
import { FOLIAGE, fuzzyComposite, recompositeError, SKY, type Colour, type KnownComposite } from '../src/main/engine/pipeline/refine-fixtures'
import { corpusDir, corpusFiles, loadAverage, machine, options, positiveInt, round } from './lib'

/** The new background of the re-composites: a colour no subject or old background has. */
const NEW_BACKGROUND: [number, number, number] = [255, 0, 200]
const BACKGROUNDS: Record<string, Colour> = { sky: SKY, foliage: FOLIAGE }

export async function main(args: string[]): Promise<number> {
  const opt = options(args)
  const variant = (opt.get('variant') ?? resolveOptions({ dataDir: '' }).modelVariant) as ModelVariant
  if (variant !== 'small' && variant !== 'medium') throw new Error(`--variant must be small or medium, got ${variant}`)
  const limit = opt.has('limit') ? positiveInt(opt.get('limit'), 0, '--limit') : undefined
  let dir: string | null = null
  try {
    dir = corpusDir(opt.get('corpus'))
  } catch {
    dir = null // no corpus: the synthetic composites still run
  }
  const loadStart = loadAverage()
  const segmenter = await Segmenter.create({ variant })
  try {
    const images = dir ? await compareWithReferences(segmenter, corpusFiles(dir, limit), join(dir, '..', 'reference')) : []
    const composites = opt.has('no-composites') ? [] : await knownComposites(segmenter, dir ? join(dir, '..', 'reference') : null, limit)
    const mean = (rows: Array<Record<string, unknown>>, key: string): number =>
      round(rows.reduce((s, r) => s + (r[key] as number), 0) / Math.max(1, rows.length), 4)
    const summary: Record<string, unknown> = {}
    if (images.length > 0) {
      for (const key of ['iou_edges', 'iou_none', 'mean_abs_alpha_error_edges', 'mean_abs_alpha_error_none']) summary[`images_${key}`] = mean(images, key)
    }
    if (composites.length > 0) {
      for (const key of ['sad_edges', 'sad_none', 'colour_error_edges', 'colour_error_none', 'band_colour_error_edges', 'band_colour_error_none'])
        summary[`composites_${key}`] = mean(composites, key)
      summary.composites_colour_error_lower_with_refine = composites.filter((c) => c.colour_error_edges < c.colour_error_none).length
      summary.composites = composites.length
    }
    console.log(
      JSON.stringify(
        { bench: 'quality', corpus: dir, variant, machine: { ...machine(), load_average_start: loadStart, load_average_end: loadAverage() }, summary, images, composites },
        null,
        2
      )
    )
  } finally {
    await segmenter.close()
  }
  return 0
}

/** A mask source that runs the model once per image and hands the same mask to both refine settings. */
function onceSource(segmenter: Segmenter): MaskSource {
  let last: { image: DecodedImage; run: Promise<ModelRun> } | null = null
  return {
    variant: segmenter.variant,
    segment: (image, signal) => segmenter.segment(image, signal),
    segmentAtModelSize: (image, signal) => {
      if (last?.image !== image) last = { image: image as DecodedImage, run: segmenter.segmentAtModelSize(image, signal) }
      return last.run
    }
  }
}

async function bothAlphas(source: MaskSource, image: DecodedImage, input: Buffer) {
  const edges = await computeAlpha(image, input, { segmenter: source }, { alpha: 'auto', refine: 'edges' })
  const none = await computeAlpha(image, input, { segmenter: source }, { alpha: 'auto', refine: 'none' })
  return { edges, none }
}

async function compareWithReferences(segmenter: Segmenter, files: string[], referenceDir: string) {
  const rows: Array<Record<string, unknown> & { iou_edges: number }> = []
  const refs = existsSync(referenceDir) ? readdirSync(referenceDir) : []
  const source = onceSource(segmenter)
  for (const file of files) {
    const name = basename(file, extname(file))
    const mine = refs.filter((r) => r.startsWith(`${name}.`) && r.endsWith('.png'))
    if (mine.length === 0) continue
    const input = await readFile(file)
    const image = await decodeImage(input, { maxPixels: 100_000_000 })
    const { edges, none } = await bothAlphas(source, image, input)
    for (const ref of mine.sort()) {
      const truth = await alphaOf(join(referenceDir, ref), image.width, image.height)
      rows.push({
        image: basename(file),
        reference: ref.slice(name.length + 1, -4),
        iou_edges: round(iou(truth, edges.alpha), 4),
        iou_none: round(iou(truth, none.alpha), 4),
        mean_abs_alpha_error_edges: round(meanAbs(truth, edges.alpha), 3),
        mean_abs_alpha_error_none: round(meanAbs(truth, none.alpha), 3)
      })
    }
  }
  return rows
}

/** Known subjects: every reference cutout (one per photo: the best model's), and the synthetic one. */
async function knownComposites(segmenter: Segmenter, referenceDir: string | null, limit?: number) {
  const subjects: Array<{ name: string; make(bg: Colour): Promise<KnownComposite> }> = [
    { name: 'synthetic-fuzzy-1600x1200', make: async (bg) => fuzzyComposite(1600, 1200, bg) }
  ]
  if (referenceDir && existsSync(referenceDir)) {
    const byPhoto = new Map<string, string>()
    const rank = (f: string): number => (f.includes('birefnet-massive') ? 0 : f.includes('birefnet') ? 1 : f.includes('u2net') ? 2 : 3)
    for (const f of readdirSync(referenceDir).filter((f) => f.endsWith('.png') && !f.includes('isnet')).sort()) {
      const photo = f.split('.')[0]!
      const have = byPhoto.get(photo)
      if (!have || rank(f) < rank(have)) byPhoto.set(photo, f)
    }
    for (const f of [...byPhoto.values()].slice(0, limit)) subjects.push({ name: f, make: (bg) => fromCutout(join(referenceDir, f), bg) })
  }
  const rows: Array<Record<string, unknown> & { colour_error_edges: number; colour_error_none: number }> = []
  const source = onceSource(segmenter)
  for (const subject of subjects) {
    for (const [bgName, bg] of Object.entries(BACKGROUNDS)) {
      const t = await subject.make(bg)
      const image: DecodedImage = { data: t.image, width: t.width, height: t.height, channels: 4, hasAlpha: false, warnings: [] }
      const { edges, none } = await bothAlphas(source, image, t.image)
      const band = (i: number): boolean => t.alpha[i]! > 0 && t.alpha[i]! < 255
      rows.push({
        subject: subject.name,
        old_background: bgName,
        size: `${t.width}x${t.height}`,
        sad_edges: round(sad(t.alpha, edges.alpha), 3),
        sad_none: round(sad(t.alpha, none.alpha), 3),
        colour_error_edges: round(recompositeError(t, edges.alpha, edges.foreground, NEW_BACKGROUND), 4),
        colour_error_none: round(recompositeError(t, none.alpha, none.foreground, NEW_BACKGROUND), 4),
        band_colour_error_edges: round(recompositeError(t, edges.alpha, edges.foreground, NEW_BACKGROUND, band), 3),
        band_colour_error_none: round(recompositeError(t, none.alpha, none.foreground, NEW_BACKGROUND, band), 3)
      })
    }
  }
  return rows
}

/** A reference cutout (RGBA) as a known subject over `bg`. */
async function fromCutout(file: string, bg: Colour): Promise<KnownComposite> {
  const { data, info } = await sharp(file).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  const { width, height } = info
  const n = width * height
  const image = Buffer.alloc(n * 4)
  const alpha = Buffer.alloc(n)
  const fg = Buffer.alloc(n * 3)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x
      const a = data[i * 4 + 3]!
      const b = bg(x, y)
      alpha[i] = a
      for (let c = 0; c < 3; c++) {
        fg[i * 3 + c] = data[i * 4 + c]!
        image[i * 4 + c] = Math.round((a / 255) * data[i * 4 + c]! + (1 - a / 255) * b[c]!)
      }
      image[i * 4 + 3] = 255
    }
  return { width, height, image, alpha, fg }
}

/** The alpha of a reference PNG, at the photo's size (references are the photo's size). */
async function alphaOf(file: string, width: number, height: number): Promise<Buffer> {
  const { data, info } = await sharp(file).ensureAlpha().extractChannel(3).raw().toBuffer({ resolveWithObject: true })
  if (info.width !== width || info.height !== height) throw new Error(`${file} is ${info.width}×${info.height}, the photo ${width}×${height}`)
  return data
}

function iou(a: Buffer, b: Buffer): number {
  let inter = 0
  let union = 0
  for (let i = 0; i < a.length; i++) {
    const x = a[i]! >= 128
    const y = b[i]! >= 128
    if (x && y) inter++
    if (x || y) union++
  }
  return union === 0 ? 1 : inter / union
}

function meanAbs(a: Buffer, b: Buffer): number {
  let s = 0
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i]! - b[i]!)
  return s / a.length
}

/** Sum of absolute alpha differences (alpha in [0, 1]), in thousands. */
function sad(a: Buffer, b: Buffer): number {
  let s = 0
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i]! - b[i]!)
  return s / 255 / 1000
}

