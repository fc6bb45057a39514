/**
 * The two reference processes of `npm run bench` (`speed.ts`), each run in a process of its own:
 * - floor: the model alone with a session config that shares nothing with the product's
 *   (ONNX Runtime's defaults, an intra-op thread for every CPU, and variations of those): the
 *   session's creation from the model's bytes, then every photo's run; photos are decoded and
 *   resized to the model's input outside the clock.
 * - imgly: `@imgly/background-removal-node` on the same photos one at a time, its model load
 *   included (its first call loads it).
 */
import { readdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import ort from 'onnxruntime-node'
import sharp from 'sharp'
import type { CpuProfile } from '../src/main/engine/segment/session/machine'
import { loadModel, type ModelVariant } from '../src/main/engine/segment/mask/model'
import { mimeOf, round } from './lib'

export interface ChildReport {
  /** Creation (floor: the session; imgly: its first call's model load is inside its runs). */
  load_s: number
  run_s: number[]
  /** Load plus every run: the model-alone time for all photos. */
  total_s: number
  /** Load plus the first run: the floor's time to a first mask. */
  cold_s: number
  seconds_per_photo: number
  user_s: number | null
  sys_s: number | null
  peak_rss_mb: number | null
  options?: Record<string, unknown>
}

/** The floor's session configs: ONNX Runtime's defaults with a thread per CPU, and variations of them. */
export function floorConfigs(cpu: Pick<CpuProfile, 'logical' | 'physical'>): Record<string, Record<string, unknown>> {
  const threads = availableParallelism()
  const configs: Record<string, Record<string, unknown>> = {
    'ort-defaults': { intraOpNumThreads: threads },
    'ort-defaults-no-memory-pattern': { intraOpNumThreads: threads, enableMemPattern: false }
  }
  if (cpu.physical !== null && cpu.physical !== threads) configs['ort-defaults-physical-cores'] = { intraOpNumThreads: cpu.physical }
  return configs
}

type Opt = { get(name: string): string | undefined }

function photos(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((f) => join(dir, f))
}

function send(msg: ChildReport | { error: string }): number {
  process.send!(msg)
  return 0
}

export async function runFloorChild(opt: Opt): Promise<number> {
  try {
    const options = JSON.parse(opt.get('config')!) as Record<string, unknown>
    const model = await loadModel(opt.get('variant') as ModelVariant)
    const files = photos(opt.get('dir')!)
    const cpu = process.cpuUsage()
    const t0 = performance.now()
    const session = await ort.InferenceSession.create(model, options)
    const load = (performance.now() - t0) / 1000
    const runs: number[] = []
    for (const file of files) {
      const input = await modelInput(file)
      const t = performance.now()
      await session.run({ input }, ['output'])
      runs.push((performance.now() - t) / 1000)
    }
    const used = process.cpuUsage(cpu)
    const total = load + runs.reduce((a, b) => a + b, 0)
    return send({
      load_s: round(load, 2),
      run_s: runs.map((r) => round(r, 2)),
      total_s: round(total, 2),
      cold_s: round(load + runs[0]!, 2),
      seconds_per_photo: round(total / files.length),
      user_s: round(used.user / 1e6, 1),
      sys_s: round(used.system / 1e6, 1),
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      options
    })
  } catch (err) {
    return send({ error: err instanceof Error ? err.message : String(err) })
  }
}

/** The photo as the built-in model's input: 1024² RGB planes, pixel/256 − 0.5. */
async function modelInput(file: string): Promise<ort.Tensor> {
  const { data } = await sharp(file).rotate().resize(1024, 1024, { fit: 'fill' }).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  const n = 1024 * 1024
  const planes = new Float32Array(3 * n)
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) planes[c * n + i] = data[i * 3 + c]! / 256 - 0.5
  return new ort.Tensor('float32', planes, [1, 3, 1024, 1024])
}

export async function runImglyChild(opt: Opt): Promise<number> {
  try {
    const require = createRequire(import.meta.url)
    const imgly = require('@imgly/background-removal-node') as {
      removeBackground(image: Blob, config: Record<string, unknown>): Promise<Blob>
    }
    const dist = join(require.resolve('@imgly/background-removal-node'), '..')
    const config = { publicPath: `${pathToFileURL(dist).href}/`, model: opt.get('variant'), output: { format: 'image/png' } }
    const files = photos(opt.get('dir')!)
    const cpu = process.cpuUsage()
    const runs: number[] = []
    for (const file of files) {
      const t = performance.now()
      const out = await imgly.removeBackground(new Blob([new Uint8Array(await readFile(file))], { type: mimeOf(file) }), config)
      await out.arrayBuffer()
      runs.push((performance.now() - t) / 1000)
    }
    const used = process.cpuUsage(cpu)
    const total = runs.reduce((a, b) => a + b, 0)
    return send({
      load_s: 0,
      run_s: runs.map((r) => round(r, 2)),
      total_s: round(total, 2),
      cold_s: round(runs[0]!, 2),
      seconds_per_photo: round(total / files.length),
      user_s: round(used.user / 1e6, 1),
      sys_s: round(used.system / 1e6, 1),
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024)
    })
  } catch (err) {
    return send({ error: err instanceof Error ? err.message : String(err) })
  }
}
