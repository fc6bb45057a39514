/**
 * `npm run bench:stages -- [--corpus <dir>] [--limit N] [--repeat N]`
 *
 * The CPU each of the engine's own steps costs per photo, beside the model's run, printed as
 * JSON (never asserted): on a machine whose cores the model's threads fill, every CPU-second
 * of these steps is time added to what the user waits for. Each step runs alone in this
 * process, one photo at a time, `--repeat` times (median): CPU time of the whole process
 * (sharp's and the thread pool's included) and wall time. The model runs once per photo for
 * its mask, outside the steps' figures (its own CPU and wall time are reported beside them).
 */
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { decodeImage, Segmenter, encodeImage, makeCutout } from '../src/main/engine/pipeline'
import { MODEL_SIZE } from '../src/main/engine/segment/mask/mask'
import { resizeToPlanes } from '../src/main/engine/segment/mask/resample'
import { refineEdges } from '../src/main/engine/pipeline/refine/refine'
import { uncertainty } from '../src/main/engine/segment/mask/uncertainty'
import { contentHash } from '../src/main/engine/content-hash'
import sharp from 'sharp'
import { corpusDir, corpusFiles, machine, median, options, positiveInt, round } from './lib'

type Step = () => Promise<unknown> | unknown

async function measure(step: Step, repeat: number): Promise<{ cpu_ms: number; wall_ms: number }> {
  const cpu: number[] = []
  const wall: number[] = []
  for (let i = 0; i < repeat; i++) {
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    await step()
    const t = performance.now() - t0
    const c = process.cpuUsage(c0)
    cpu.push((c.user + c.system) / 1000)
    wall.push(t)
  }
  return { cpu_ms: round(median(cpu), 1), wall_ms: round(median(wall), 1) }
}

export async function main(args: string[]): Promise<number> {
  const opt = options(args)
  const repeat = positiveInt(opt.get('repeat'), 3, '--repeat')
  const files = corpusFiles(corpusDir(opt.get('corpus')), opt.get('limit') ? positiveInt(opt.get('limit'), 0, '--limit') : undefined)
  const segmenter = await Segmenter.create({ variant: 'medium' })
  const photos: Record<string, unknown>[] = []
  const totals = new Map<string, number[]>()
  try {
    for (const file of files) {
      const bytes = await readFile(file)
      const image = await decodeImage(bytes, { maxPixels: 100_000_000 })
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      const run = await segmenter.segmentAtModelSize(image)
      const modelWall = performance.now() - t0
      const mc = process.cpuUsage(c0)
      const mask = { data: run.mask, width: run.width ?? MODEL_SIZE, height: run.height ?? MODEL_SIZE }
      const planes = new Float32Array(3 * MODEL_SIZE * MODEL_SIZE)
      let refined = await refineEdges(image, mask)
      const steps: Record<string, Step> = {
        hash: () => contentHash(bytes),
        decode: () => decodeImage(bytes, { maxPixels: 100_000_000 }),
        model_input: () =>
          resizeToPlanes(image.data, image.width, image.height, image.channels, MODEL_SIZE, MODEL_SIZE, planes, 1 / 255, -0.5),
        mask_png: () =>
          sharp(mask.data, { raw: { width: mask.width, height: mask.height, channels: 1 } })
            .png({ compressionLevel: 6 })
            .toBuffer(),
        refine: async () => (refined = await refineEdges(image, mask)),
        uncertainty: () => uncertainty(mask, { data: refined.alpha, width: image.width, height: image.height }),
        cutout: () => makeCutout({ data: refined.foreground, width: image.width, height: image.height, channels: 4 }, refined.alpha),
        encode_png: () =>
          encodeImage(
            {
              data: makeCutout({ data: refined.foreground, width: image.width, height: image.height, channels: 4 }, refined.alpha),
              width: image.width,
              height: image.height,
              channels: 4
            },
            'png',
            {}
          )
      }
      const row: Record<string, unknown> = {
        photo: basename(file),
        megapixels: round((image.width * image.height) / 1e6, 2),
        model: { cpu_ms: round((mc.user + mc.system) / 1000, 0), wall_ms: round(modelWall, 0) }
      }
      for (const [name, step] of Object.entries(steps)) {
        const m = await measure(step, repeat)
        row[name] = m
        totals.set(name, [...(totals.get(name) ?? []), m.cpu_ms])
      }
      photos.push(row)
    }
  } finally {
    await segmenter.close()
  }
  const perPhoto = Object.fromEntries([...totals].map(([k, v]) => [k, round(v.reduce((a, b) => a + b, 0) / v.length, 1)]))
  const sum = round(
    Object.values(perPhoto).reduce((a, b) => a + b, 0),
    1
  )
  console.log(
    JSON.stringify(
      {
        machine: machine(),
        repeat,
        photos: photos.length,
        mean_cpu_ms_per_photo: perPhoto,
        steps_cpu_ms_per_photo: sum,
        per_photo: photos
      },
      null,
      2
    )
  )
  return 0
}
