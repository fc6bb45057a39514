/**
 * The batch service on a real engine (model, SQLite, files): dropped folders mirrored into
 * the destination, per-file cancel and retry, browser-style job references, and batches that
 * survive a restart.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BatchService } from '../src/main/batches/service'
import { cleanRelPath } from '../src/main/batches/paths'
import { outputNames } from '../src/shared/names'
import { Engine } from '../src/main/engine/engine'
import { sceneJpeg, scenePng } from './helpers/fixtures'
import { tempDir } from './helpers/engine'
import { CLIPPING, address, until, settled } from './helpers/batches'

let root: string
let png: Buffer
let jpeg: Buffer

beforeAll(async () => {
  root = tempDir('clipdesk-batches-')
  png = await scenePng()
  jpeg = await sceneJpeg()
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('paths inside a batch', () => {
  it('never lets a relative path climb out of the destination', () => {
    expect(cleanRelPath('../../etc/passwd')).toBe('etc/passwd')
    expect(cleanRelPath('C:\\shoot\\..\\a.jpg')).toBe('shoot/a.jpg')
    expect(cleanRelPath('/abs/./x.png')).toBe('abs/x.png')
    expect(cleanRelPath('../..')).toBeNull()
    const naming = (relPath: string) => ({ relPath, template: null, mode: 'clipping', params: null, date: '2026-01-02', seq: 1 })
    expect(outputNames(naming('shoot/day1/a.jpg'), [{ variation: 'clipping', ext: 'png' }])).toEqual(['shoot/day1/a.png'])
    expect(
      outputNames(naming('a.jpg'), [
        { variation: 'compose', ext: 'jpg' },
        { variation: 'mask', ext: 'png' }
      ])
    ).toEqual(['a.on-background.jpg', 'a.mask.png'])
  })
})

describe('batches on a real engine', () => {
  it('mirrors a dropped folder into the destination, and the batch survives a restart', async () => {
    const dataDir = join(root, 'data1')
    const shoot = join(root, 'in1', 'shoot')
    mkdirSync(join(shoot, 'sub'), { recursive: true })
    writeFileSync(join(shoot, 'a.png'), png)
    writeFileSync(join(shoot, 'sub', 'b.jpg'), jpeg)
    writeFileSync(join(shoot, 'notes.txt'), 'not an image')
    writeFileSync(join(shoot, '.hidden.png'), png)
    const out = join(root, 'out1')

    let engine = new Engine({ dataDir })
    engine.start()
    let service = new BatchService(engine)
    service.start()
    const created = await service.create({ request: CLIPPING, destination: out, name: 'Shoot' })
    const added = await service.add(created.id, [{ path: shoot }])
    // notes.txt is listed (not an image, never run); the hidden file is not taken at all.
    expect(added).toEqual({ added: 3, refused: [] })

    const done = await until(service, created.id, settled)
    expect(done.counts).toMatchObject({ total: 2, done: 2, failed: 0, not_images: 1 })
    expect(done.progress).toBe(100)
    expect(done.finished_at).not.toBeNull()
    for (const file of ['shoot/a.png', 'shoot/sub/b.png']) {
      const meta = await sharp(readFileSync(join(out, file))).metadata()
      expect(meta.channels).toBe(4) // a cut-out: RGBA
    }
    const detail = service.detail(created.id, address)
    expect(detail.items.map((i) => [i.rel_path, i.state, i.progress, i.not_image])).toEqual([
      ['shoot/a.png', 'done', 100, false],
      ['shoot/notes.txt', 'failed', 0, true],
      ['shoot/sub/b.jpg', 'done', 100, false]
    ])
    expect(detail.items[1]!.error).toBe('Not an image (.txt): skipped.')
    const first = detail.items[0]!
    expect(first.outputs).toEqual([join(out, 'shoot/a.png')])
    // The built-in model on this machine's only device, with no fallback to report.
    expect(first).toMatchObject({ model: 'medium', device: 'cpu', warnings: [] })
    expect(detail.items[1]).toMatchObject({ model: null, device: null }) // never run
    expect(first.thumb_url).toContain('/thumb-after')
    expect(first.after_url).toContain('/after')
    expect(await service.previewFile(first.id, 'thumb-after')).toMatch(/\.webp$/)
    expect(await service.previewFile(first.id, 'before')).toMatch(/\.webp$/)
    expect(service.outputFolder({ batch_id: created.id, item_id: detail.items[2]!.id })).toBe(join(out, 'shoot/sub'))

    // Restart: a new engine and service on the same data folder.
    await service.stop()
    await engine.stop()
    engine = new Engine({ dataDir })
    engine.start()
    service = new BatchService(engine)
    service.start()
    const again = service.list()
    expect(again.map((b) => [b.name, b.counts.done, b.counts.total, b.interrupted])).toEqual([['Shoot', 2, 2, false]])
    expect(service.detail(created.id, address).items.every((i) => i.not_image || (i.state === 'done' && existsSync(i.outputs[0]!)))).toBe(
      true
    )
    expect(service.detail(created.id, address).items[0]).toMatchObject({ model: 'medium', device: 'cpu' })
    await service.stop()
    await engine.stop()
  })

  it('cancels a waiting file, fails a broken one, retries, and takes uploaded jobs by id', async () => {
    const dataDir = join(root, 'data2')
    const dir = join(root, 'in2')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'a.jpg'), jpeg)
    writeFileSync(join(dir, 'a.png'), png) // same stem as a.jpg: its output gets another name
    writeFileSync(join(dir, 'broken.png'), 'this is not a PNG')
    const out = join(root, 'out2')

    const engine = new Engine({ dataDir, concurrency: 1 })
    engine.start()
    const service = new BatchService(engine, { window: 1 })
    service.start()
    const batch = await service.create({ request: CLIPPING, destination: out })
    // A browser's upload: the job exists first, then joins the batch by id.
    const uploaded = await engine.upload({
      fields: { mode: 'clipping', output_format: 'png' },
      file: { bytes: png, mimeType: 'image/png' },
      keyId: null
    })
    const jobId = uploaded.job_id
    const added = await service.add(batch.id, [
      { job_id: jobId, rel_path: '../up/ball.png' },
      { path: join(dir, 'a.jpg') },
      { path: join(dir, 'broken.png') },
      { path: join(dir, 'a.png') }
    ])
    expect(added.added).toBe(4)
    const again = await service.add(batch.id, [{ job_id: jobId, rel_path: 'x.png' }, { path: join(dir, 'missing.png') }])
    expect(again.added).toBe(0)
    expect(again.refused.map((r) => r.error)).toEqual([
      expect.stringContaining('already in a batch'),
      expect.stringContaining('no such file')
    ])

    // With a window of one, the last file is still waiting in the batch: cancel it.
    const items = service.detail(batch.id, address).items
    const last = items[3]!
    expect(last.status).toBe('waiting')
    service.cancel({ batch_id: batch.id, item_id: last.id })
    expect(service.store.item(last.id)!.status).toBe('cancelled')

    const first = await until(service, batch.id, settled)
    expect(first.counts).toMatchObject({ total: 4, done: 2, failed: 1, cancelled: 1 })
    const byPath = Object.fromEntries(service.detail(batch.id, address).items.map((i) => [i.rel_path, i]))
    expect(byPath['up/ball.png']!.outputs).toEqual([join(out, 'up/ball.png')])
    expect(byPath['broken.png']!.error).toMatch(/not an image|cannot be read|not a PNG|supported/i)

    // Retry the cancelled and the failed files: one is done now, the broken one fails again.
    await service.retry({ batch_id: batch.id })
    const second = await until(service, batch.id, settled)
    expect(second.counts).toMatchObject({ total: 4, done: 3, failed: 1, cancelled: 0 })
    expect(existsSync(join(out, 'a.png'))).toBe(true)
    expect(existsSync(join(out, 'a-1.png'))).toBe(true) // a.jpg and a.png of one folder never overwrite each other

    expect(await service.remove(batch.id)).toBe(true)
    expect(service.list()).toEqual([])
    expect(existsSync(join(out, 'a.png'))).toBe(true) // files written stay
    await service.stop()
    await engine.stop()
  })
})
