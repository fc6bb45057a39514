/**
 * The quality benchmark on real photos: each corpus photo through the alpha step with
 * `refine=none|edges|detail`, against every reference cutout of it (`<name>.<model>.png`).
 * Per reference: alpha IoU at 50 %, mean |Δα| (0–255) over the whole frame, and in the
 * reference's edge band (`quality-metrics.ts`) the mean |Δα| (agreement on the edges).
 */
import { readdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import sharp from 'sharp'
import { decodeImage } from '../src/main/engine/pipeline'
import { computeAlpha } from '../src/main/engine/pipeline/segment-and-refine'
import { round } from './lib'
import { edgeBand, iou, meanAbs } from './quality-metrics'
import type { CountingSource } from './quality-source'

const METHODS = ['none', 'edges', 'detail'] as const
/** Photos whose subject covers a small part of the frame (the detail pass' target). */
const SMALL_SUBJECT_PHOTOS = ['car-1', 'girl-1']

interface PhotoRow {
  image: string
  reference: string
  detail_ran: boolean
  [k: string]: unknown
}

export async function comparePhotos(source: CountingSource, files: string[], refDir: string): Promise<Record<string, unknown>> {
  const refs = readdirSync(refDir).filter((f) => f.endsWith('.png'))
  const rows: PhotoRow[] = []
  for (const file of files) {
    const name = basename(file, extname(file))
    const mine = refs.filter((r) => r.startsWith(`${name}.`)).sort()
    if (mine.length === 0) continue
    const input = await readFile(file)
    const image = await decodeImage(input, { maxPixels: 100_000_000 })
    const alphas: Record<string, Buffer> = {}
    let detailRan = false
    for (const m of METHODS) {
      source.reset()
      alphas[m] = (await computeAlpha(image, input, { segmenter: source }, { alpha: 'auto', refine: m })).alpha
      if (m === 'detail') detailRan = source.calls.length > 1
    }
    for (const ref of mine) {
      const truth = await alphaOf(join(refDir, ref), image.width, image.height)
      const band = edgeBand(truth, image.width, image.height, 3)
      const row: PhotoRow = { image: basename(file), reference: ref.slice(name.length + 1, -4), detail_ran: detailRan }
      for (const m of METHODS) {
        row[`iou_${m}`] = round(iou(truth, alphas[m]!), 4)
        row[`mean_abs_${m}`] = round(meanAbs(truth, alphas[m]!), 3)
        row[`edge_band_abs_${m}`] = round(meanAbs(truth, alphas[m]!, band), 2)
      }
      rows.push(row)
    }
  }
  const pick = (f: (r: PhotoRow) => boolean): Record<string, number> => {
    const rs = rows.filter(f)
    const out: Record<string, number> = { rows: rs.length }
    for (const m of METHODS)
      for (const k of ['iou', 'mean_abs', 'edge_band_abs'])
        out[`${k}_${m}`] = round(rs.reduce((s, r) => s + (r[`${k}_${m}`] as number), 0) / Math.max(1, rs.length), 4)
    return out
  }
  return {
    same_weights_reference: pick((r) => r.reference === 'isnet-general-use'),
    strongest_reference_edge_band: pick((r) => r.reference === 'birefnet-massive'),
    small_subject_photos: pick((r) => SMALL_SUBJECT_PHOTOS.some((p) => r.image.startsWith(`${p}.`))),
    all_references: pick(() => true),
    rows
  }
}

async function alphaOf(file: string, width: number, height: number): Promise<Buffer> {
  const { data, info } = await sharp(file).ensureAlpha().extractChannel(3).raw().toBuffer({ resolveWithObject: true })
  if (info.width !== width || info.height !== height)
    throw new Error(`${file} is ${info.width}×${info.height}, the photo ${width}×${height}`)
  return data
}
