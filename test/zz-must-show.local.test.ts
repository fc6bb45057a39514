// Measurement only (not committed): 6 corpus photos through a batch with ecommerce-white.
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import type { BatchSummary } from '../src/shared/batches'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'

it('6 photos: ecommerce-white → 6 files; all variations → 24', async () => {
  const root = '/tmp/fs-must/batch'
  rmSync(root, { recursive: true, force: true })
  const engine = new Engine({ dataDir: join(root, 'data') })
  engine.start()
  const service = new BatchService(engine)
  service.start()
  const photos = readdirSync('/work/shared/corpus/inputs').sort().slice(0, 6)
  const run = async (all: boolean, out: string): Promise<string[]> => {
    const b = await service.create({ request: { mode: 'params', output_format: 'png', params: 'ecommerce-white', all_variations: all }, destination: out })
    await service.add(b.id, photos.map((p) => ({ path: join('/work/shared/corpus/inputs', p) })))
    await new Promise<void>((resolve) => {
      const check = (): void => {
        const s: BatchSummary = service.summary(b.id)
        if (s.counts.total === 6 && s.counts.waiting + s.counts.running === 0) resolve()
      }
      service.on('batch', check)
      check()
    })
    return (readdirSync(out, { recursive: true }) as string[]).filter((f) => f.includes('.')).sort()
  }
  const one = await run(false, join(root, 'primary'))
  const all = await run(true, join(root, 'all'))
  console.log(JSON.stringify({ photos, primary: one.length, primaryFiles: one, all: all.length }))
  expect(one.length).toBe(6)
  expect(all.length).toBe(24)
  await service.stop()
  await engine.stop()
}, 1_200_000)
