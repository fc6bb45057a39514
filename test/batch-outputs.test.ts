/**
 * A batch writes what was asked: with a preset, the primary variation of each photo only;
 * with "all variations" (or a parameter set that names `variations=`), every variation; and
 * every batch's files are exactly the names the batch screen previewed before Start.
 * Real engine (model, SQLite, files); the second batch reuses the first one's masks.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { batchCreateSchema, type BatchRequest } from '../src/shared/batches'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { plannedOutputs } from '../src/shared/outputs'
import { builtinPreset } from '../src/shared/presets'
import { sceneJpeg, scenePng } from './helpers/fixtures'
import { tempDir } from './helpers/engine'
import { until, settled } from './helpers/batches'
import { filesUnder } from './helpers/watch'

const lookup = (name: string) => builtinPreset(name)?.values ?? null

let root: string
let engine: Engine
let service: BatchService

beforeAll(async () => {
  root = tempDir('clipdesk-batch-outputs-')
  engine = new Engine({ dataDir: join(root, 'data') })
  engine.start()
  service = new BatchService(engine)
  service.start()
})
afterAll(async () => {
  await service.stop()
  await engine.stop()
  rmSync(root, { recursive: true, force: true })
})

async function runBatch(request: BatchRequest, out: string): Promise<string[]> {
  const batch = await service.create({ request, destination: out })
  const [png, jpeg] = [await scenePng(), await sceneJpeg()]
  await service.add(batch.id, [
    { bytes: png, rel_path: 'ball.png' },
    { bytes: jpeg, rel_path: 'shoe.jpg' }
  ])
  const done = await until(service, batch.id, settled)
  expect(done.counts).toMatchObject({ total: 2, done: 2, failed: 0 })
  // The batch's report (and its temp name while it is being written) lands beside the outputs.
  const written = filesUnder(out).filter((f) => !/^\.?clipdesk-report\./.test(f))
  // The batch screen's preview before Start names exactly the files the writer wrote.
  const previewed = ['ball.png', 'shoe.jpg'].flatMap((rel) => plannedOutputs(request, rel, lookup)!.names)
  expect(written).toEqual(previewed.sort())
  return written
}

describe('batch outputs', () => {
  const preset: BatchRequest = { mode: 'params', output_format: 'png', params: 'ecommerce-white' }

  it('writes the primary only with a preset', async () => {
    const one = await runBatch(preset, join(root, 'primary'))
    expect(one).toEqual(['ball.png', 'shoe.png'])
    // The primary of ecommerce-white is the shadowed composite: 2000×2000 on white, opaque corners.
    const { data, info } = await sharp(join(root, 'primary', 'ball.png'))
      .raw()
      .toBuffer({ resolveWithObject: true })
    expect([info.width, info.height]).toEqual([2000, 2000])
    expect([...data.subarray(0, info.channels)].slice(0, 3)).toEqual([255, 255, 255])
  })

  // The later batches reuse the first one's masks (same photos): each is a compose, not a model run.
  it('places the original as a cropping preset framed its result: before and after compare the same frame', async () => {
    const out = join(root, 'framing')
    await runBatch(preset, out)
    const [batch] = service.list().filter((b) => b.destination === out)
    const item = service.detail(batch!.id, () => '').items.find((i) => i.name === 'ball.png')!
    const [before, after] = await Promise.all([service.previewFile(item.id, 'before'), service.previewFile(item.id, 'after')])
    const [b, a] = await Promise.all([sharp(before!).metadata(), sharp(after!).metadata()])
    // ecommerce-white makes a 2000×2000 frame: the before view is that square too, not the 4:3 photo.
    expect(b.width! / b.height!).toBeCloseTo(a.width! / a.height!, 2)
    expect(b.width).toBe(b.height)
    // Outside the placed subject's box the framed original is transparent, like the canvas margins.
    const corner = await sharp(before!).ensureAlpha().extract({ left: 0, top: 0, width: 1, height: 1 }).raw().toBuffer()
    expect(corner[3]).toBe(0)
    // A cut-out without crop or size keeps the photo's own frame.
    const plainOut = join(root, 'framing-plain')
    await runBatch({ mode: 'clipping', output_format: 'png', params: null }, plainOut)
    const plain = service.list().find((x) => x.destination === plainOut)!
    const plainItem = service.detail(plain.id, () => '').items.find((i) => i.name === 'ball.png')!
    const plainBefore = await sharp((await service.previewFile(plainItem.id, 'before'))!).metadata()
    const scene = await sharp(await scenePng()).metadata()
    expect(plainBefore.width! / plainBefore.height!).toBeCloseTo(scene.width! / scene.height!, 2)
  })

  it('writes every variation when asked', async () => {
    const all = await runBatch({ ...preset, all_variations: true }, join(root, 'all'))
    // File names carry the designer's words for the variations (src/shared/vocabulary.ts).
    const expected = ['background', 'cut-out', 'on-background', 'with-shadow'].flatMap((v) => [`ball.${v}.png`, `shoe.${v}.png`]).sort()
    expect(all).toEqual(expected)
  })

  it('writes the variations a set names, and names files by the template', async () => {
    const named = await runBatch(
      { mode: 'params', output_format: 'png', params: 'ecommerce-white;variations=clipping,shadowTop' },
      join(root, 'named')
    )
    expect(named).toEqual(['ball.cut-out.png', 'ball.with-shadow.png', 'shoe.cut-out.png', 'shoe.with-shadow.png'])
    const templated = await runBatch({ ...preset, name_template: '{preset}/{name}-{variation}.{ext}' }, join(root, 'templated'))
    expect(templated).toEqual(['ecommerce-white/ball-with-shadow.png', 'ecommerce-white/shoe-with-shadow.png'])
  })

  it('writes the extension of the format asked for, as the preview says (jpeg stays jpeg)', async () => {
    const jpeg = await runBatch(
      { mode: 'clipping', output_format: 'jpeg', params: null, name_template: '{name}.{variation}.{ext}' },
      join(root, 'jpeg')
    )
    expect(jpeg).toEqual(['ball.cut-out.jpeg', 'shoe.cut-out.jpeg'])
  })

  it('refuses a bad naming template when the batch is created', () => {
    const bad = batchCreateSchema.safeParse({
      request: { mode: 'clipping', output_format: 'png', params: null, name_template: '{nope}.{ext}' },
      destination: '/tmp/x'
    })
    expect(bad.success).toBe(false)
    expect(bad.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['request.name_template', expect.stringContaining('unknown token {nope}')]
    ])
  })

  it('plans the file names the batch screen shows before Start', () => {
    const ecommerce = { mode: 'params' as const, output_format: 'png' as const, params: 'ecommerce-white' }
    expect(plannedOutputs(ecommerce, 'shoe', lookup)?.names).toEqual(['shoe.png'])
    expect(plannedOutputs({ ...ecommerce, all_variations: true }, 'shoe', lookup)?.names).toEqual([
      'shoe.with-shadow.png',
      'shoe.cut-out.png',
      'shoe.background.png',
      'shoe.on-background.png'
    ])
    expect(plannedOutputs({ ...ecommerce, params: 'no-such-preset' }, 'shoe', lookup)).toBeNull()
    expect(plannedOutputs({ ...ecommerce, name_template: '{preset}/{date}/{name}-{variation}.{ext}' }, 'shoe', lookup)?.names).toEqual([
      'ecommerce-white/YYYY-MM-DD/shoe-with-shadow.png'
    ])
  })
})
