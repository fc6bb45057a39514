/**
 * `npm run bench:session -- [--corpus <dir>] [--limit N] [--rounds N] [--a <json>] [--b <json>]`
 *
 * Two sets of ONNX Runtime session options for the default model, measured against each other
 * in one process so that a change in the machine's load hits both alike: two sessions on the
 * same model, each corpus photo (resized to the model's 1024² input once) run through A then B,
 * then B then A in the next round. Prints the median time and CPU time per run of each, and the
 * ratios B/A.
 *
 * A defaults to ONNX Runtime's own memory settings (CPU arena and memory pattern on), B to the
 * engine's (`providerOptions('cpu')`: both off, as the engine has had them since before the model
 * registry, for a peak RSS ~0.3–0.5 GB lower). Memory is measured by `npm run bench` (one process
 * per setting, `--session-options`); this answers what the engine's settings cost in speed.
 */
import os from 'node:os'
import ort from 'onnxruntime-node'
import sharp from 'sharp'
import { providerOptions } from '../src/main/engine/segment/session/devices'
import { loadModel } from '../src/main/engine/segment/mask/model'
import { corpusDir, corpusFiles, loadAverage, machine, median, options, positiveInt, round } from './lib'

const SIZE = 1024

export async function main(args: string[]): Promise<number> {
  const opt = options(args)
  const files = corpusFiles(corpusDir(opt.get('corpus')), opt.has('limit') ? positiveInt(opt.get('limit'), 0, '--limit') : 6)
  const rounds = positiveInt(opt.get('rounds'), 2, '--rounds')
  const threads = os.availableParallelism()
  const cpu = { ...providerOptions('cpu', threads), graphOptimizationLevel: 'all' }
  const settings = {
    a: opt.has('a') ? JSON.parse(opt.get('a')!) : { ...cpu, enableCpuMemArena: true, enableMemPattern: true },
    b: opt.has('b') ? JSON.parse(opt.get('b')!) : cpu
  }
  const model = await loadModel('medium')
  const sessions = {
    a: await ort.InferenceSession.create(model, settings.a),
    b: await ort.InferenceSession.create(model, settings.b)
  }
  const inputs: ort.Tensor[] = []
  for (const file of files) inputs.push(await tensorOf(file))
  const times: Record<'a' | 'b', number[]> = { a: [], b: [] }
  // CPU seconds of the process per run: what a run takes from the cores the rest of the pipeline shares.
  const cpuMs: Record<'a' | 'b', number[]> = { a: [], b: [] }
  const loadStart = loadAverage()
  const run = async (which: 'a' | 'b', input: ort.Tensor): Promise<void> => {
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    await sessions[which].run({ input }, ['output'])
    times[which].push(performance.now() - t0)
    const c = process.cpuUsage(c0)
    cpuMs[which].push((c.user + c.system) / 1000)
  }
  // One warm-up each, outside the figures.
  await run('a', inputs[0]!)
  await run('b', inputs[0]!)
  for (const list of [times.a, times.b, cpuMs.a, cpuMs.b]) list.length = 0
  for (let r = 0; r < rounds; r++) {
    for (const input of inputs) {
      const order: Array<'a' | 'b'> = r % 2 === 0 ? ['a', 'b'] : ['b', 'a']
      for (const which of order) await run(which, input)
    }
  }
  const a = median(times.a)
  const b = median(times.b)
  console.log(
    JSON.stringify(
      {
        machine: machine(),
        load: { start: loadStart, end: loadAverage() },
        images: files.length,
        runs_each: times.a.length,
        a: {
          options: settings.a,
          median_ms: round(a, 0),
          median_cpu_ms: round(median(cpuMs.a), 0),
          runs_ms: times.a.map((t) => round(t, 0))
        },
        b: {
          options: settings.b,
          median_ms: round(b, 0),
          median_cpu_ms: round(median(cpuMs.b), 0),
          runs_ms: times.b.map((t) => round(t, 0))
        },
        b_over_a: round(b / a, 3),
        b_over_a_cpu: round(median(cpuMs.b) / median(cpuMs.a), 3)
      },
      null,
      2
    )
  )
  await sessions.a.release()
  await sessions.b.release()
  return 0
}

/** The photo as the model's input: 1024² RGB planes, value = pixel/256 − 0.5 (the built-ins' normalisation). */
async function tensorOf(file: string): Promise<ort.Tensor> {
  const rgb = await sharp(file).removeAlpha().resize(SIZE, SIZE, { fit: 'fill' }).raw().toBuffer()
  const planes = new Float32Array(3 * SIZE * SIZE)
  for (let i = 0, n = SIZE * SIZE; i < n; i++) {
    planes[i] = rgb[i * 3]! / 256 - 0.5
    planes[n + i] = rgb[i * 3 + 1]! / 256 - 0.5
    planes[2 * n + i] = rgb[i * 3 + 2]! / 256 - 0.5
  }
  return new ort.Tensor('float32', planes, [1, 3, SIZE, SIZE])
}
