/**
 * Batches the app stopped under: at the next start the batch is marked interrupted and its
 * remaining files wait; "Resume" runs only those (the files already done keep their job and
 * their output, and no job runs twice). Results being written when the app stopped are not
 * written twice, and a file of the user's at a chosen name is never replaced. The batch's
 * report lands beside its outputs. Real engine (model, SQLite, files), restarted in-process.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { PROGRESS_AT } from '../src/shared/api'
import { scenePng } from './helpers/fixtures'
import { tempDir } from './helpers/engine'
import { CLIPPING, address, until, settled } from './helpers/batches'
import { withDataFolderDb } from './helpers/data-folder'

const pngsIn = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.png'))
    .sort()

let root: string
let inputs: string[]

beforeAll(async () => {
  root = tempDir('clipdesk-batch-resume-')
  const base = await scenePng()
  mkdirSync(join(root, 'in'), { recursive: true })
  // Four different photos (flipped, rotated): four different cut-outs, no shared mask cache.
  const variants = [
    base,
    await sharp(base).flop().png().toBuffer(),
    await sharp(base).flip().png().toBuffer(),
    await sharp(base).rotate(180).png().toBuffer()
  ]
  inputs = variants.map((bytes, i) => {
    const path = join(root, 'in', `p${i}.png`)
    writeFileSync(path, bytes)
    return path
  })
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

async function open(
  dataDir: string,
  opts: { window?: number } = {}
): Promise<{ engine: Engine; service: BatchService; close(): Promise<void> }> {
  const engine = new Engine({ dataDir, concurrency: 1 })
  engine.start()
  const service = new BatchService(engine, opts)
  service.start()
  return {
    engine,
    service,
    async close() {
      await service.stop()
      await engine.stop()
    }
  }
}

describe('an interrupted batch', () => {
  it('waits for Resume after a restart, then runs only the files not done', async () => {
    const dataDir = join(root, 'data1')
    const out = join(root, 'out1')
    let app = await open(dataDir, { window: 1 })
    const batch = await app.service.create({ request: CLIPPING, destination: out })
    await app.service.add(
      batch.id,
      inputs.map((path) => ({ path }))
    )
    await until(app.service, batch.id, (s) => s.counts.done >= 1)
    await app.close() // the app is closed while the batch runs

    app = await open(dataDir, { window: 1 })
    const held = app.service.summary(batch.id)
    expect(held.interrupted).toBe(true)
    const doneBefore = app.service.detail(batch.id, address).items.filter((i) => i.state === 'done')
    expect(doneBefore.length).toBeGreaterThanOrEqual(1)
    expect(held.counts.waiting).toBe(4 - doneBefore.length)
    // Nothing runs unasked: no job is queued, every remaining file waits.
    expect(app.engine.health().queued).toBe(0)
    expect(app.engine.jobCount('done')).toBe(doneBefore.length)
    const before = new Map(doneBefore.map((i) => [i.id, { job: i.job_id, mtime: statSync(i.outputs[0]!).mtimeMs }]))

    const resumed = app.service.resume(batch.id)
    expect(resumed.interrupted).toBe(false)
    const done = await until(app.service, batch.id, settled)
    expect(done.counts).toMatchObject({ total: 4, done: 4, failed: 0, cancelled: 0 })
    // One output per photo, none twice; the files done before kept their job and their file.
    expect(pngsIn(out)).toEqual(['p0.png', 'p1.png', 'p2.png', 'p3.png'])
    for (const item of app.service.detail(batch.id, address).items) {
      const was = before.get(item.id)
      if (!was) continue
      expect(item.job_id).toBe(was.job)
      expect(statSync(item.outputs[0]!).mtimeMs).toBe(was.mtime)
    }
    // Every photo ran to done exactly once.
    expect(app.engine.jobCount('done')).toBe(4)
    await app.close()
  })

  it('is not interrupted again once resumed and done; a batch cancelled while interrupted is not either', async () => {
    const dataDir = join(root, 'data1')
    let app = await open(dataDir)
    expect(app.service.list().every((b) => !b.interrupted)).toBe(true)
    const batch = await app.service.create({ request: CLIPPING, destination: join(root, 'out1c') })
    await app.service.add(batch.id, [{ path: inputs[0]! }])
    await app.close()
    app = await open(dataDir)
    expect(app.service.summary(batch.id)).toMatchObject({ interrupted: true, counts: { waiting: 1 } })
    expect(app.service.cancel({ batch_id: batch.id })).toMatchObject({ interrupted: false, counts: { cancelled: 1, waiting: 0 } })
    await app.close()
    app = await open(dataDir)
    expect(app.service.summary(batch.id).interrupted).toBe(false)
    await app.close()
  })
})

describe('an interrupted batch whose job the engine had not taken back yet', () => {
  it('follows that job on Resume instead of running the file again', async () => {
    const dataDir = join(root, 'data4')
    const out = join(root, 'out4')
    // The engine is not started: the file's job waits in its queue.
    let engine = new Engine({ dataDir, concurrency: 1 })
    let service = new BatchService(engine)
    service.start()
    const batch = await service.create({ request: CLIPPING, destination: out })
    await service.add(batch.id, [{ path: inputs[0]! }])
    await until(service, batch.id, () => service.store.items(batch.id)[0]?.status === 'queued')
    const jobId = service.store.items(batch.id)[0]!.jobId!
    await service.stop()
    await engine.stop()

    // As after a crash mid-run, with the batches started before the engine took its jobs back
    // (`clipdesk serve --paused`): the job is still marked running, nobody runs it.
    engine = new Engine({ dataDir, concurrency: 1 })
    const marked = withDataFolderDb(dataDir, (db) =>
      db
        .prepare("UPDATE jobs SET status = 'segmenting', progress = max(progress, ?), updated_at = ? WHERE id = ? AND status = 'queued'")
        .run(PROGRESS_AT.segmenting, Date.now(), jobId)
    )
    expect(marked.changes).toBe(1)
    service = new BatchService(engine)
    service.start()
    expect(service.summary(batch.id)).toMatchObject({ interrupted: true, counts: { waiting: 1 } })
    expect(engine.job(jobId)!.status).toBe('segmenting') // not the batch's to cancel
    const jobDone = new Promise<void>((resolve) => {
      const on = (): void => {
        if (engine.job(jobId)?.status !== 'done') return
        engine.off('job', on)
        resolve()
      }
      engine.on('job', on)
    })
    engine.start() // takes the job back and runs it
    await jobDone
    expect(service.summary(batch.id).counts).toMatchObject({ waiting: 1, done: 0 }) // still held

    service.resume(batch.id)
    const done = await until(service, batch.id, settled)
    expect(done.counts).toMatchObject({ total: 1, done: 1 })
    expect(service.store.items(batch.id)[0]!.jobId).toBe(jobId)
    expect(pngsIn(out)).toEqual(['p0.png'])
    expect(engine.jobCount('done')).toBe(1) // the file ran once
    await service.stop()
    await engine.stop()
  })
})

describe('results being written when the app stopped', () => {
  it('are not written twice, and a file of the user at the chosen name is kept', async () => {
    const dataDir = join(root, 'data2')
    const out = join(root, 'out2')
    let app = await open(dataDir)
    const batch = await app.service.create({ request: CLIPPING, destination: out })
    await app.service.add(batch.id, [{ path: inputs[0]! }, { path: inputs[1]! }])
    await until(app.service, batch.id, settled)
    const [a, b] = app.service.detail(batch.id, address).items
    // As if the app had stopped after writing a's result (and after choosing b's name) but
    // before recording them: the items are still running, with their names chosen.
    app.service.store.updateItem(a!.id, { status: 'segmenting', outputs: [], planned: a!.outputs, finishedAt: null })
    app.service.store.updateItem(b!.id, { status: 'segmenting', outputs: [], planned: b!.outputs, finishedAt: null })
    // Meanwhile the user put a file of their own at b's name.
    rmSync(b!.outputs[0]!)
    writeFileSync(b!.outputs[0]!, 'my own file')
    await app.close()

    app = await open(dataDir)
    // The jobs were done: their results are copied at start, no Resume needed for them.
    const done = await until(app.service, batch.id, settled)
    expect(done).toMatchObject({ interrupted: false, counts: { done: 2 } })
    expect(pngsIn(out)).toEqual(['p0.png', 'p1-1.png', 'p1.png'])
    expect(readFileSync(join(out, 'p1.png'), 'utf8')).toBe('my own file')
    const items = app.service.detail(batch.id, address).items
    expect(items.map((i) => i.outputs)).toEqual([[join(out, 'p0.png')], [join(out, 'p1-1.png')]])
    expect(app.engine.jobCount('done')).toBe(2)
    await app.close() // waits for the report being written
    expect(readdirSync(out).filter((f) => f.startsWith('.'))).toEqual([]) // no temp file left
  })
})

describe('the batch report', () => {
  it('lists failures with the reason and the files that are not images, beside the outputs', async () => {
    const dataDir = join(root, 'data3')
    const dir = join(root, 'in3', 'shoot')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'a.png'), readFileSync(inputs[0]!))
    writeFileSync(join(dir, 'broken.png'), 'this is not a PNG')
    writeFileSync(join(dir, 'notes.txt'), 'not an image')
    const out = join(root, 'out3')
    const app = await open(dataDir)
    const batch = await app.service.create({ request: CLIPPING, destination: out, name: 'Shoot' })
    // A browser could not send one file: it is listed and reported with why.
    const added = await app.service.add(batch.id, [{ path: dir }, { refused: 'The upload is larger than 10 bytes.', rel_path: 'big.png' }])
    expect(added).toEqual({ added: 4, refused: [] })
    const done = await until(app.service, batch.id, settled)
    expect(done.counts).toMatchObject({ total: 3, done: 1, failed: 2, not_images: 1 })
    const txtPath = join(out, 'clipdesk-report.txt')
    await expect.poll(() => readdirSync(out).includes('clipdesk-report.txt')).toBe(true)
    const report = JSON.parse(readFileSync(join(out, 'clipdesk-report.json'), 'utf8'))
    expect(report.batch).toEqual({ id: batch.id, name: 'Shoot' })
    expect(report.counts).toEqual({
      images: 3,
      touched_up: 0,
      done: 1,
      failed: 2,
      cancelled: 0,
      not_started: 0,
      not_images: 1,
      files_written: 1,
      to_check: 0,
      likely_wrong: 0
    })
    // The one cutout made, with its score: the ball is clear-cut (docs/review.md).
    expect(report.cutouts).toEqual([{ input: 'shoot/a.png', uncertainty: expect.any(Number), review: null, to_check: false }])
    expect(report.outcome).toBe('Done with 2 errors')
    // In the order the files were added; in plain words, with the engine's own text beside them.
    expect(report.failed).toEqual([
      {
        input: 'shoot/broken.png',
        reason: 'This file is not an image Clipdesk reads (PNG, JPEG, WebP, GIF, AVIF, TIFF, PSD or SVG)',
        details: expect.stringContaining('not an image of a supported type')
      },
      { input: 'big.png', reason: 'The upload is larger than 10 bytes.' }
    ])
    expect(report.not_images).toEqual(['shoot/notes.txt'])
    expect(report.settings).toEqual({ mode: 'clipping', output_format: 'png', all_variations: false })
    const txt = readFileSync(txtPath, 'utf8')
    expect(txt).toMatch(/^clipdesk batch "Shoot" — .*\nDone with 2 errors\n/)
    // In a designer's words: plurals right, no zero counts, no code values.
    expect(txt).toContain('\nSettings: Cut-out (transparent) · PNG; one file per photo; default names\n')
    expect(txt).toContain('\n3 photos: 1 done, 2 failed; 1 file written; 1 other file skipped (not an image)\n')
    expect(txt).not.toMatch(/mode=|=null|1 images|1 files|other files not processed/)
    expect(txt).toContain(
      '  shoot/broken.png: This file is not an image Clipdesk reads (PNG, JPEG, WebP, GIF, AVIF, TIFF, PSD or SVG)\n    details: '
    )
    expect(txt).toContain('Not images (skipped):\n  shoot/notes.txt')
    expect(txt).toContain('\n0 cutouts to check')
    expect(txt).toContain('  big.png: The upload is larger than 10 bytes.')
    await app.close()
  })
})
