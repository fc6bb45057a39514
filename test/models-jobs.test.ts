/**
 * Registry models through the HTTP API, with real onnxruntime on graphs generated in the test
 * (no model files on disk, the built-in IS-Net never loaded): a job with `model=<name>` gives
 * the mask the graph implies, the mask cache keeps models apart, a bad file is refused when it
 * is added, and `device=cuda` on a machine without CUDA runs on the CPU and says so.
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EngineError } from '../src/main/engine/errors'
import { machineCacheDir } from '../src/main/engine/segment/session/machine'
import { convSegmentationModel } from '../src/main/engine/segment/models/onnx-writer'
import { multipart, pollUntilSettled, startTestServer, tempDir, type TestServer } from './helpers/engine'
import { json } from './helpers/http'
import { withDataFolderDb } from './helpers/data-folder'

let server: TestServer
const logged: string[] = []
const dir = tempDir('clipdesk-models-')
let image: Buffer

/** 64×48: left half red 200, right half red 60 (green and blue differ so a wrong plane shows). */
async function halvesPng(): Promise<Buffer> {
  const w = 64
  const h = 48
  const data = Buffer.alloc(w * h * 3)
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(x < w / 2 ? [200, 10, 90] : [60, 240, 30], (y * w + x) * 3)
  return sharp(data, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer()
}

beforeAll(async () => {
  server = await startTestServer({ threads: 1, log: (m) => logged.push(m) })
  image = await halvesPng()
  // u2netp's descriptor (320², ImageNet mean/std, probabilities), recognised by its file name:
  // 0.229·x + 0.485 undoes the red plane's normalisation, so the mask is the red value.
  writeFileSync(join(dir, 'u2netp.onnx'), convSegmentationModel({ size: [320, 320], weights: [0.229, 0, 0], bias: 0.485 }))
  // A custom dynamic-size model whose mask is 255 − red.
  writeFileSync(join(dir, 'inverse.onnx'), convSegmentationModel({ size: null, weights: [-1, 0, 0], bias: 0.5 }))
  writeFileSync(join(dir, 'wrong.onnx'), convSegmentationModel({ size: [1024, 1024], weights: [1, 0, 0], channels: 1 }))
  writeFileSync(join(dir, 'garbage.onnx'), Buffer.from('this is not an ONNX file, only some text'))
})
afterAll(() => server.close())

async function run(params: string): Promise<{ body: Record<string, any>; alpha: [number, number] }> {
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': server.key },
    body: multipart(
      { mode: 'clipping', params, delivery_mode: 'url', output_format: 'png' },
      { bytes: image, type: 'image/png', name: 'halves.png' }
    )
  })
  const accepted = await json(res)
  expect(res.status, JSON.stringify(accepted)).toBe(202)
  const { status, body } = await pollUntilSettled(server, accepted.job_id)
  if (status !== 200) return { body, alpha: [-1, -1] }
  const png = Buffer.from(await (await fetch(body.final_url)).arrayBuffer())
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  const at = (x: number, y: number): number => data[(y * info.width + x) * 4 + 3]!
  return { body, alpha: [at(6, 24), at(57, 24)] }
}

async function send(params: string): Promise<{ status: number; body: Record<string, any>; retryAfter: string | null }> {
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': server.key },
    body: multipart({ mode: 'clipping', params }, { bytes: image, type: 'image/png' })
  })
  return { status: res.status, body: await json(res), retryAfter: res.headers.get('retry-after') }
}

describe('registry models in jobs', () => {
  it('adds a file recognised by name and a custom descriptor; lists them with the built-ins', async () => {
    const svc = server.engine.modelService
    const added = await svc.add({ file: join(dir, 'u2netp.onnx') })
    expect(added.model).toMatchObject({
      name: 'u2netp',
      family: 'u2netp',
      inputSize: [320, 320],
      outputKind: 'probabilities',
      builtin: false
    })
    expect(added.test.device).toBe('cpu')
    const custom = {
      input: { size: [96, 64], dynamic: true, channelOrder: 'rgb', scale: 255, mean: [0.5, 0.5, 0.5], std: [1, 1, 1] },
      output: { kind: 'probabilities' },
      licence: 'test graph',
      source: 'generated',
      speedClass: 'fast'
    }
    await svc.add({ file: join(dir, 'inverse.onnx'), name: 'inverse', descriptor: custom })
    const names = svc.list().map((m) => m.name)
    expect(names).toEqual(['medium', 'small', 'inverse', 'u2netp'])
    expect(svc.list().find((m) => m.name === 'medium')).toMatchObject({ isDefault: true, builtin: true, device: 'auto' })
  })

  it('a job with model=u2netp gives the mask the graph implies (the red value), and records model and device', async () => {
    const { body, alpha } = await run('model=u2netp;refine=none')
    expect(body).toMatchObject({ status: 'done', model: 'u2netp', device: 'cpu' })
    expect(alpha).toEqual([200, 60])
  })

  it('the mask cache keeps models apart: the same photo with another model gets that model’s mask', async () => {
    expect((await run('model=inverse;refine=none')).alpha).toEqual([55, 195])
    expect((await run('model=u2netp;refine=none')).alpha).toEqual([200, 60])
    const keys = withDataFolderDb(
      server.dataDir,
      (db) => db.prepare('SELECT model FROM mask_cache ORDER BY model').all() as { model: string }[]
    ).map((r) => r.model)
    expect(keys).toHaveLength(2)
    expect(keys[0]).toMatch(/^inverse@[0-9a-f]{16}\/1$/)
    expect(keys[1]).toMatch(/^u2netp@[0-9a-f]{16}\/1$/)
  })

  it('refuses at upload a model name of the wrong form and a name the registry does not have (422 params.model); no job is made', async () => {
    const queued = server.engine.queuedCount()
    for (const params of ['model=Not A Name', 'model=no-such-model', '{"model": "no-such-model"}']) {
      const { status, body } = await send(params)
      expect(status, params).toBe(422)
      expect(body.error.code).toBe('validation_failed')
      expect(body.error.details.map((d: { field: string }) => d.field)).toEqual(['params.model'])
    }
    const { body } = await send('model=no-such-model')
    expect(body.error.details[0].issue).toBe('unknown model; expected one of medium, small, inverse, u2netp')
    expect(server.engine.queuedCount()).toBe(queued)
  })

  it('a model that exists but failed to load: its job fails model_unavailable, then its uploads get 503 unavailable with Retry-After while others are taken', async () => {
    const file = join(dir, 'fragile.onnx')
    writeFileSync(file, convSegmentationModel({ size: [320, 320], weights: [0.229, 0, 0], bias: 0.485 }))
    await server.engine.modelService.add({ file, name: 'fragile', as: 'u2netp' })
    // Another model becomes resident, then the file changes under the registry's record.
    expect((await run('model=u2netp;refine=none')).body.status).toBe('done')
    writeFileSync(file, convSegmentationModel({ size: [320, 320], weights: [0.5, 0, 0], bias: 0.1 }))
    // The machine's optimised copy (made when the model was added) would serve it without reading
    // the changed file: gone too, the file itself must be read.
    const copies = join(machineCacheDir(), 'models')
    for (const f of readdirSync(copies)) if (f.startsWith('fragile_')) rmSync(join(copies, f))
    const failed = await run('model=fragile;refine=none')
    expect(failed.body.status).toBe('failed')
    expect(failed.body.error.reason).toBe('model_unavailable')
    expect(failed.body.error.message).toContain('changed since it was added')
    const refused = await send('model=fragile;refine=none')
    expect(refused.status).toBe(503)
    expect(refused.body.error.code).toBe('unavailable')
    expect(refused.body.error.message).toContain('fragile')
    expect(refused.retryAfter).toBe('60')
    expect((await send('model=u2netp;refine=none')).status).toBe(202)
    server.engine.modelService.remove('fragile')
  })

  it('refuses a file whose input shape is wrong, naming both shapes; and a file that is not ONNX', async () => {
    const svc = server.engine.modelService
    const wrong = await svc.add({ file: join(dir, 'wrong.onnx'), as: 'birefnet-general' }).catch((e: unknown) => e)
    expect(wrong).toBeInstanceOf(EngineError)
    expect((wrong as EngineError).code).toBe('validation_failed')
    expect((wrong as EngineError).message).toContain('input "input": expected shape [1, 3, 1024, 1024], got [1, 1, 1024, 1024]')
    const garbage = await svc.add({ file: join(dir, 'garbage.onnx'), as: 'u2net' }).catch((e: unknown) => e)
    expect((garbage as EngineError).code).toBe('validation_failed')
    expect((garbage as EngineError).message).toMatch(/^The model was not added: cannot start the model garbage@[0-9a-f]+: /)
    const unknown = await svc.add({ file: join(dir, 'garbage.onnx') }).catch((e: unknown) => e)
    expect((unknown as EngineError).details).toEqual([expect.objectContaining({ field: 'as' })])
    expect(svc.list().map((m) => m.name)).toEqual(['medium', 'small', 'inverse', 'u2netp'])
  })

  it('device=cuda without CUDA: the job succeeds on the CPU; the job record, its warnings and the log say so', async () => {
    server.engine.modelService.setDevice('cuda')
    // Another photo, so the mask is not served from the cache and the model really runs.
    image = await sharp(image).flop().png().toBuffer()
    const { body, alpha } = await run('model=u2netp;refine=none')
    expect(alpha).toEqual([60, 200])
    expect(body).toMatchObject({ status: 'done', device: 'cpu' })
    expect(body.warnings.clipping.join(' ')).toMatch(/device: the cuda execution provider could not be used .*running on the CPU/)
    expect(server.engine.job(body.job_id)).toMatchObject({ model: 'u2netp', device: 'cpu' })
    expect(logged.some((m) => /^model u2netp: the cuda execution provider could not be used/.test(m))).toBe(true)
    expect(server.engine.modelService.list().find((m) => m.name === 'u2netp')).toMatchObject({
      device: 'cuda',
      activeDevice: 'cpu',
      resident: true
    })
  })
})
