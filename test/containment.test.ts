/**
 * Outputs and moved originals stay inside their folders by real path: symbolic links planted in
 * an output, done or destination folder are refused, and symlinked inputs of a watched folder
 * are skipped with a visible reason. Real files and links, real chokidar, real SQLite; batches
 * on a real engine.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BatchService } from '../src/main/batches/service'
import { containedDir, ContainmentError, viaSymlink } from '../src/main/outputs/contained-dir'
import { Engine } from '../src/main/engine/engine'
import { openDatabase, type Db } from '../src/main/engine/store/db'
import { featureTablesOf } from '../src/main/engine/store/feature-tables'
import { WatchService } from '../src/main/watch/service'
import { tempDir } from './helpers/engine'
import { FakeProcessor, tinyImage, waitFor } from './helpers/watch'

let root: string
let outside: string

beforeEach(() => {
  root = tempDir('clipdesk-contain-')
  outside = join(root, 'outside')
  mkdirSync(outside)
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

describe('containedDir', () => {
  it('makes folders level by level and refuses a symbolic link at any level', async () => {
    const base = join(root, 'out')
    expect(await containedDir(base, join(base, 'a', 'b'))).toBe(join(base, 'a', 'b'))
    symlinkSync(outside, join(base, 'a', 'link'))
    await expect(containedDir(base, join(base, 'a', 'link', 'c'))).rejects.toThrow(ContainmentError)
    await expect(containedDir(base, join(root, 'elsewhere'))).rejects.toThrow(/not inside/)
    expect(readdirSync(outside)).toEqual([])
    expect(await viaSymlink(base, join(base, 'a', 'link', 'x.png'))).toBe(true)
    expect(await viaSymlink(base, join(base, 'a', 'b', 'x.png'))).toBe(false)
  })
})

describe('watched folders', () => {
  let db: Db
  let fake: FakeProcessor
  let svc: WatchService
  let inbox: string

  beforeEach(async () => {
    inbox = join(root, 'inbox')
    mkdirSync(inbox)
    db = openDatabase(join(root, 'clipdesk.db'))
    fake = new FakeProcessor(join(root, 'results'))
    svc = new WatchService({
      tables: featureTablesOf(db),
      processor: fake,
      stableMs: 300,
      pollMs: 30,
      syncMs: 100,
      rescanMs: 60_000,
      log: () => undefined
    })
    await svc.start()
  })
  afterEach(async () => {
    await svc.stop()
    db.close()
  })

  it('a symlinked sub-folder inside clipdesk-out does not take outputs outside: the file fails with the reason', async () => {
    mkdirSync(join(inbox, 'clipdesk-out'))
    symlinkSync(outside, join(inbox, 'clipdesk-out', 'shoot'))
    const { id } = await svc.add({ path: inbox })
    mkdirSync(join(inbox, 'shoot'))
    writeFileSync(join(inbox, 'shoot', 'a.png'), await tinyImage(11))
    await waitFor('a failed', () => svc.view(id)!.counts.failed === 1)
    const failed = svc.view(id)!.failed[0]!
    expect(failed.error?.code).toBe('output_failed')
    expect(failed.error?.message).toMatch(/symbolic link/)
    expect(readdirSync(outside)).toEqual([])
  })

  it('a symlinked clipdesk-out itself is refused too', async () => {
    symlinkSync(outside, join(inbox, 'clipdesk-out'))
    const { id } = await svc.add({ path: inbox })
    writeFileSync(join(inbox, 'b.png'), await tinyImage(12))
    await waitFor('b failed', () => svc.view(id)!.counts.failed === 1)
    expect(svc.view(id)!.failed[0]!.error?.message).toMatch(/symbolic link/)
    expect(readdirSync(outside)).toEqual([])
  })

  it('a symlinked sub-folder inside clipdesk-done keeps the original where it is', async () => {
    mkdirSync(join(inbox, 'clipdesk-done'))
    symlinkSync(outside, join(inbox, 'clipdesk-done', 'day1'))
    const { id } = await svc.add({ path: inbox, originals: 'move' })
    mkdirSync(join(inbox, 'day1'))
    writeFileSync(join(inbox, 'day1', 'c.png'), await tinyImage(13))
    await waitFor('c done', () => svc.view(id)!.counts.done === 1)
    await waitFor('the refusal recorded', () => svc.view(id)!.recent.some((e) => e.kind === 'error' && /symbolic link/.test(e.message)))
    expect(existsSync(join(inbox, 'day1', 'c.png'))).toBe(true)
    expect(readdirSync(outside)).toEqual([])
  })

  it('a symlinked input file is skipped with a visible reason and never processed', async () => {
    const secret = join(outside, 'secret.png')
    writeFileSync(secret, await tinyImage(14))
    const { id } = await svc.add({ path: inbox })
    symlinkSync(secret, join(inbox, 'link.png'))
    writeFileSync(join(inbox, 'real.png'), await tinyImage(15))
    await waitFor('both settled', () => svc.view(id)!.counts.done === 1 && svc.view(id)!.counts.failed === 1)
    const failed = svc.view(id)!.failed[0]!
    expect([failed.rel_path, failed.error?.code]).toEqual(['link.png', 'symbolic_link'])
    expect(failed.error?.message).toMatch(/Symbolic links are not processed/)
    expect(fake.submissions.map((s) => s.filename)).not.toContainEqual(expect.stringContaining('link.png'))
  })
})

describe('batches', () => {
  let engine: Engine
  let service: BatchService

  beforeEach(() => {
    engine = new Engine({ dataDir: join(root, 'data') })
    engine.start()
    service = new BatchService(engine)
    service.start()
  })
  afterEach(async () => {
    await service.stop()
    await engine.stop()
  })

  const settled = async (batchId: string): Promise<void> =>
    waitFor('the batch settled', () => {
      const c = service.summary(batchId).counts
      return c.done + c.failed === c.total && c.total > 0
    })

  it('a symlink inside the destination does not take results outside: the item fails with the reason', async () => {
    const dest = join(root, 'dest')
    mkdirSync(dest)
    symlinkSync(outside, join(dest, 'shoot'))
    const src = join(root, 'shoot')
    mkdirSync(src)
    writeFileSync(
      join(src, 'd.png'),
      await sharp({ create: { width: 48, height: 32, channels: 3, background: '#c84' } })
        .png()
        .toBuffer()
    )
    const batch = await service.create({
      request: { mode: 'clipping', output_format: 'png', params: null },
      destination: dest,
      name: 'Links'
    })
    await service.add(batch.id, [{ path: src }])
    await settled(batch.id)
    const item = service.detail(batch.id, () => '').items[0]!
    expect(item.state).toBe('failed')
    expect(item.error).toMatch(/symbolic link/)
    expect(readdirSync(outside)).toEqual([])
  })

  it('adding a job that already finished copies its result into the destination', async () => {
    const bytes = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#48c' } })
      .png()
      .toBuffer()
    const res = await engine.upload({ fields: { output_format: 'png' }, file: { bytes, mimeType: 'image/png' }, keyId: null })
    const jobId = res.job_id
    await waitFor('the job done', () => engine.job(jobId)?.status === 'done')
    const dest = join(root, 'dest2')
    const batch = await service.create({
      request: { mode: 'clipping', output_format: 'png', params: null },
      destination: dest,
      name: 'Late'
    })
    expect(await service.add(batch.id, [{ job_id: jobId, rel_path: 'late.png' }])).toEqual({ added: 1, refused: [] })
    await settled(batch.id)
    expect(service.summary(batch.id).counts.done).toBe(1)
    expect(readdirSync(dest).filter((f) => !f.startsWith('clipdesk-report.'))).toEqual(['late.png'])
  })
})
