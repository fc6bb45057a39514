/**
 * `{n}` in a batch's name template is the photo's number in that batch, in the order the form's
 * preview shows: every batch starts at 001, files that are not images take no number, a retried
 * file keeps its number, files added later continue the count, and a name already taken in the
 * destination gets `-1` (docs/names.md). Real engine (model, SQLite, files); the photos repeat, so
 * the masks come from the cache after the first of each.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'libsql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BatchFileRef, BatchRequest } from '../src/shared/batches'
import { BatchService } from '../src/main/batches/service'
import { BATCH_MIGRATIONS } from '../src/main/batches/schema/migrations'
import { BatchStore } from '../src/main/batches/store'
import { Engine } from '../src/main/engine/engine'
import { featureTablesOf } from '../src/main/engine/store/feature-tables'
import { photoNumbers, plannedOutputs } from '../src/shared/outputs'
import { builtinPreset } from '../src/shared/presets'
import { sceneJpeg, scenePng } from './helpers/fixtures'
import { tempDir } from './helpers/engine'
import { settled, until } from './helpers/batches'
import { filesUnder } from './helpers/watch'

const lookup = (name: string) => builtinPreset(name)?.values ?? null
const REQUEST: BatchRequest = { mode: 'clipping', output_format: 'png', params: null, name_template: '{n:3}-{name}.{ext}' }
const written = (dir: string): string[] => filesUnder(dir).filter((f) => !/^\.?clipdesk-report\./.test(f))

/** The names the batch screen shows before Start for these files, in this order (NewBatch.tsx). */
function previewed(files: Array<{ rel_path: string; not_image?: boolean }>): string[] {
  const numbers = photoNumbers(files.map((f) => ({ notImage: f.not_image })))
  return files.flatMap((f, i) => (f.not_image ? [] : plannedOutputs(REQUEST, f.rel_path, lookup, numbers[i])!.names))
}

let root: string
let engine: Engine
let service: BatchService
let png: Buffer
let jpeg: Buffer

beforeAll(async () => {
  root = tempDir('clipdesk-batch-numbers-')
  engine = new Engine({ dataDir: join(root, 'data') })
  engine.start()
  service = new BatchService(engine)
  service.start()
  ;[png, jpeg] = [await scenePng(), await sceneJpeg()]
})
afterAll(async () => {
  await service.stop()
  await engine.stop()
  rmSync(root, { recursive: true, force: true })
})

async function runBatch(out: string, files: BatchFileRef[]): Promise<string> {
  const batch = await service.create({ request: REQUEST, destination: out })
  await service.add(batch.id, files)
  await until(service, batch.id, settled)
  return batch.id
}

describe('{n} in a batch', () => {
  it('numbers each batch from 001 in the order the preview shows; the written names are the previewed ones', async () => {
    const files = [
      { bytes: png, rel_path: 'ball.png' },
      { refused: 'Not an image: skipped.', rel_path: 'notes.txt', not_image: true },
      { bytes: jpeg, rel_path: 'shoe.jpg' }
    ]
    const shown = previewed(files)
    expect(shown).toEqual(['001-ball.png', '002-shoe.png'])
    // Two batches in a row on one data folder: the second starts at 001 again.
    const first = join(root, 'first')
    const second = join(root, 'second')
    await runBatch(first, files)
    const id = await runBatch(second, files)
    expect(written(first)).toEqual(shown)
    expect(written(second)).toEqual(shown)
    // A file added later continues the count.
    await service.add(id, [{ bytes: png, rel_path: 'later.png' }])
    await until(service, id, (s) => s.counts.done === 3 && settled(s))
    expect(written(second)).toEqual([...shown, '003-later.png'])
  })

  it('keeps a retried file its number, and numbers a name taken in the destination -1', async () => {
    const source = join(root, 'source')
    mkdirSync(source, { recursive: true })
    writeFileSync(join(source, 'a.png'), png)
    writeFileSync(join(source, 'b.jpg'), jpeg)
    const out = join(root, 'retry')
    mkdirSync(out, { recursive: true })
    // A file of the user's own already has the first name: it stays, the photo takes the next free one.
    writeFileSync(join(out, '001-a.png'), 'not ours')
    const batch = await service.create({ request: REQUEST, destination: out })
    await service.add(batch.id, [{ path: join(source, 'a.png') }, { path: join(source, 'b.jpg') }])
    const b = service.detail(batch.id, () => '').items.find((i) => i.name === 'b.jpg')!
    service.cancel({ batch_id: batch.id, item_id: b.id })
    await until(service, batch.id, settled)
    expect(service.summary(batch.id).counts).toMatchObject({ done: 1, cancelled: 1 })
    expect(written(out)).toEqual(['001-a-1.png', '001-a.png'])
    await service.retry({ batch_id: batch.id, item_id: b.id })
    await until(service, batch.id, (s) => s.counts.done === 2)
    expect(written(out)).toEqual(['001-a-1.png', '001-a.png', '002-b.png'])
  })

  it('numbers the items of a data folder made before numbers were kept, by their order in each batch', () => {
    const db = new Database(':memory:')
    const tables = featureTablesOf(db)
    try {
      const before = BATCH_MIGRATIONS.filter((m) => m.name !== '016-batch-item-number')
      tables.migrate(before)
      for (const id of ['x', 'y']) {
        db.prepare(
          "INSERT INTO batches (id, name, mode, output_format, destination, created_at) VALUES (?, ?, 'clipping', 'png', '/tmp', 0)"
        ).run(id, id)
      }
      const add = db.prepare('INSERT INTO batch_items (id, batch_id, rel_path, status, not_image) VALUES (?, ?, ?, ?, ?)')
      add.run('x1', 'x', 'a.png', 'done', 0)
      add.run('y1', 'y', 'c.png', 'done', 0)
      add.run('x2', 'x', 'notes.txt', 'failed', 1)
      add.run('x3', 'x', 'b.png', 'waiting', 0)
      const store = new BatchStore(tables)
      expect(store.items('x').map((i) => [i.relPath, i.number])).toEqual([
        ['a.png', 1],
        ['notes.txt', null],
        ['b.png', 2]
      ])
      expect(store.items('y').map((i) => i.number)).toEqual([1])
      // New items continue each batch's count.
      expect(store.insertItem({ id: 'x4', batchId: 'x', relPath: 'd.png', sourcePath: null, jobId: null, status: 'waiting' }).number).toBe(
        3
      )
    } finally {
      db.close()
    }
  })
})
