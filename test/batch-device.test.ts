/**
 * A batch item says which model and which device made its result, after any fallback: with the
 * device set to `cuda` on a machine without CUDA (as here), the job runs on the CPU, the item
 * shows `cpu` and keeps the fallback's reason among its warnings. Real engine, SQLite and
 * onnxruntime, on a small graph generated in the test so that the model runs quickly.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { convSegmentationModel } from '../src/main/engine/segment/models/onnx-writer'
import { scenePng } from './helpers/fixtures'
import { tempDir } from './helpers/engine'
import { address, settled, until } from './helpers/batches'

let root: string
beforeAll(() => {
  root = tempDir('clipdesk-batch-device-')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('the device of a batch item', () => {
  it('is the CPU after a fallback from cuda, with the reason among the warnings; both survive a restart', async () => {
    const dataDir = join(root, 'data')
    const dir = join(root, 'in')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'a.png'), await scenePng())
    // u2netp's descriptor is recognised by the file name; the graph is a single convolution.
    const modelFile = join(root, 'u2netp.onnx')
    writeFileSync(modelFile, convSegmentationModel({ size: [320, 320], weights: [0.229, 0, 0], bias: 0.485 }))

    let engine = new Engine({ dataDir })
    engine.start()
    await engine.modelService.add({ file: modelFile })
    engine.modelService.setDevice('cuda')
    let service = new BatchService(engine)
    service.start()
    const batch = await service.create({
      request: { mode: 'clipping', output_format: 'png', params: 'model=u2netp;refine=none' },
      destination: join(root, 'out')
    })
    await service.add(batch.id, [{ path: join(dir, 'a.png') }])
    expect((await until(service, batch.id, settled)).counts).toMatchObject({ total: 1, done: 1 })

    const item = service.detail(batch.id, address).items[0]!
    expect(item).toMatchObject({ state: 'done', model: 'u2netp', device: 'cpu' })
    expect(item.warnings).toEqual([
      expect.stringMatching(/^Cut-out: device: the cuda execution provider could not be used .*running on the CPU/)
    ])
    // The item keeps what its job recorded (jobs are swept after the retention time, items stay).
    expect(engine.job(item.job_id!)).toMatchObject({ model: 'u2netp', device: 'cpu' })

    await service.stop()
    await engine.stop()
    engine = new Engine({ dataDir })
    engine.start()
    service = new BatchService(engine)
    service.start()
    const again = service.detail(batch.id, address).items[0]!
    expect(again).toMatchObject({ model: 'u2netp', device: 'cpu', warnings: item.warnings })
    await service.stop()
    await engine.stop()
  })
})
