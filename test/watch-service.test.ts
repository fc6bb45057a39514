/**
 * Watched folders with real chokidar on temp folders, real SQLite, and a cheap processor in
 * place of the model (test/watch-engine.test.ts runs the real engine). Waits are on
 * conditions, never on times.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openDatabase, type Db } from '../src/main/engine/store/db'
import { featureTablesOf } from '../src/main/engine/store/feature-tables'
import { RunLock } from '../src/main/engine/store/run-lock'
import { offlineViews } from '../src/main/watch/views'
import { WatchService, type WatchServiceOptions } from '../src/main/watch/service'
import { tempDir } from './helpers/engine'
import { FakeProcessor, filesUnder, tinyImage, waitFor } from './helpers/watch'

let root: string
let inbox: string
let db: Db
let fake: FakeProcessor
const services: WatchService[] = []

/** Fast settle times: these tests write files themselves and know when they are done. */
const FAST: Partial<WatchServiceOptions> = { stableMs: 300, pollMs: 30, syncMs: 100, rescanMs: 60_000, log: () => undefined }

function service(opts: Partial<WatchServiceOptions> = {}): WatchService {
  const s = new WatchService({ tables: featureTablesOf(db), processor: fake, ...FAST, ...opts })
  services.push(s)
  return s
}

/** A slow writer's pause between chunks (the behaviour under test, not a wait). */
const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

beforeEach(() => {
  root = tempDir('clipdesk-watch-')
  inbox = join(root, 'inbox')
  mkdirSync(inbox)
  db = openDatabase(join(root, 'clipdesk.db'))
  fake = new FakeProcessor(join(root, 'results'))
})

afterEach(async () => {
  for (const s of services.splice(0)) await s.stop()
  db.close()
  rmSync(root, { recursive: true, force: true })
})

/** Drops a sentinel file and waits until it is done: everything poked before it has settled too. */
async function settle(svc: WatchService, id: string, n: number): Promise<void> {
  const before = svc.view(id)!.counts.done
  writeFileSync(join(inbox, `zz-sentinel-${n}.png`), await tinyImage(0xabcdef - n))
  await waitFor('the sentinel', () => svc.view(id)!.counts.done > before)
}

describe('taking files only once fully written', () => {
  it('processes a file copied in slowly, in chunks, exactly once and whole', async () => {
    const svc = service()
    await svc.start()
    const { id } = await svc.add({ path: inbox })
    const full = await tinyImage(1, 'png', 256)
    const fh = await open(join(inbox, 'slow.png'), 'w')
    const chunk = Math.ceil(full.length / 8)
    for (let i = 0; i < full.length; i += chunk) {
      await fh.write(full.subarray(i, i + chunk))
      await fh.sync()
      await pause(50) // shorter than the 300 ms the size must stay the same
    }
    await fh.close()
    await waitFor('slow.png done', () => svc.view(id)!.counts.done === 1)
    await settle(svc, id, 1)
    expect(fake.submittedTimes(full)).toBe(1)
    expect(fake.submissions.filter((s) => s.filename.endsWith('/slow.png'))).toHaveLength(1)
    expect(readFileSync(join(inbox, 'clipdesk-out', 'slow.cut-out.png')).equals(full)).toBe(true)
  })

  it('holds a stable but cut-short PNG until its end arrives (a writer pausing longer than the wait)', async () => {
    const logged: string[] = []
    const svc = service({ incompleteGraceMs: 600_000, log: (m) => logged.push(m) })
    await svc.start()
    const { id } = await svc.add({ path: inbox })
    const full = await tinyImage(2, 'png', 256)
    const fh = await open(join(inbox, 'paused.png'), 'w')
    await fh.write(full.subarray(0, full.length - 20))
    await fh.sync()
    // The size stays the same past stableMs, the content is not complete: read, judged cut short, held.
    await waitFor('the cut-short file to be read and held', () => logged.some((m) => m.startsWith('paused.png: looks cut short')))
    expect(svc.view(id)!.counts.waiting).toBe(1)
    expect(fake.submissions).toHaveLength(0)
    await fh.write(full.subarray(full.length - 20))
    await fh.close()
    await waitFor('paused.png done', () => svc.view(id)!.counts.done === 1)
    expect(fake.submissions).toHaveLength(1)
    expect(fake.submittedTimes(full)).toBe(1)
  })
})

describe('many files at once', () => {
  it('processes 100 files dropped at once, each exactly once, with 100 distinct outputs', async () => {
    const svc = service()
    await svc.start()
    const { id } = await svc.add({ path: inbox })
    const staging = join(root, 'staging')
    mkdirSync(staging)
    const images: Buffer[] = []
    for (let i = 0; i < 100; i++) {
      images.push(await tinyImage(1000 + i))
      writeFileSync(join(staging, `photo-${String(i).padStart(3, '0')}.png`), images[i]!)
    }
    for (let i = 0; i < 100; i++) {
      const name = `photo-${String(i).padStart(3, '0')}.png`
      copyFileSync(join(staging, name), join(inbox, name))
    }
    await waitFor('100 done', () => svc.view(id)!.counts.done === 100)
    await settle(svc, id, 1)
    expect(fake.submissions).toHaveLength(101)
    for (const img of images) expect(fake.submittedTimes(img)).toBe(1)
    const outputs = filesUnder(join(inbox, 'clipdesk-out'))
    expect(outputs).toHaveLength(101)
    for (let i = 0; i < 100; i++) {
      const name = `photo-${String(i).padStart(3, '0')}.cut-out.png`
      expect(readFileSync(join(inbox, 'clipdesk-out', name)).equals(images[i]!)).toBe(true)
    }
    const view = svc.view(id)!
    expect(view.counts).toMatchObject({ waiting: 0, processing: 0, failed: 0, done: 101 })
    expect(view.recent[0]!.kind).toBe('done')
  })
})

describe('restarts', () => {
  it('resumes a job in flight at stop, and picks up files added while stopped; nothing is processed twice', async () => {
    let svc = service()
    await svc.start()
    const { id } = await svc.add({ path: inbox })
    const before = [await tinyImage(11), await tinyImage(12)]
    writeFileSync(join(inbox, 'a.png'), before[0]!)
    await waitFor('a done', () => svc.view(id)!.counts.done === 1)
    // b's job is still queued in the "engine" when the service stops.
    fake.hold = true
    writeFileSync(join(inbox, 'b.png'), before[1]!)
    await waitFor('b submitted', () => svc.view(id)!.counts.processing === 1)
    await svc.stop()

    const whileStopped = [await tinyImage(13), await tinyImage(14)]
    writeFileSync(join(inbox, 'c.png'), whileStopped[0]!)
    mkdirSync(join(inbox, 'sub'))
    writeFileSync(join(inbox, 'sub', 'd.png'), whileStopped[1]!)
    fake.release() // b's job finishes while no service listens

    svc = service()
    await svc.start()
    expect(svc.view(id)!.state).toBe('active')
    await waitFor('4 done', () => svc.view(id)!.counts.done === 4)
    await settle(svc, id, 2)
    for (const img of [...before, ...whileStopped]) expect(fake.submittedTimes(img)).toBe(1)
    expect(filesUnder(join(inbox, 'clipdesk-out'))).toEqual([
      'a.cut-out.png',
      'b.cut-out.png',
      'c.cut-out.png',
      'sub/d.cut-out.png',
      'zz-sentinel-2.cut-out.png'
    ])
  })

  it('the folders are watched by the process holding the data folder (the run lock), as other commands see it', async () => {
    const svc = service()
    const { id } = await svc.add({ path: inbox })
    const views = () => offlineViews(svc.store, RunLock.holder(root))
    expect(views()[0]).toMatchObject({ id, state: 'stopped' })
    // The app or `clipdesk serve` holds it: they watch the folders.
    const serving = RunLock.acquire(root, 'serve')
    expect(views()[0]).toMatchObject({ state: 'active', state_message: `watched by process ${process.pid} on ${hostname()}` })
    serving.release()
    // `clipdesk process` holds it too, and watches nothing.
    const processing = RunLock.acquire(root, 'process')
    expect(views()[0]!.state).toBe('stopped')
    processing.release()
    expect(RunLock.holder(root)).toBeNull()
  })
})

describe('renames and overwrites', () => {
  it('new content under the same name is processed again and replaces its own output; the same content renamed is skipped', async () => {
    const svc = service()
    await svc.start()
    const { id } = await svc.add({ path: inbox })
    const v1 = await tinyImage(31)
    const v2 = await tinyImage(32)
    writeFileSync(join(inbox, 'a.png'), v1)
    await waitFor('a v1 done', () => svc.view(id)!.counts.done === 1)

    // Overwrite in place with new content (as an editor saving): processed again.
    writeFileSync(join(inbox, 'a.png'), v2)
    await waitFor(
      'a v2 submitted and done',
      () => fake.submittedTimes(v2) === 1 && svc.view(id)!.counts.processing === 0 && svc.view(id)!.counts.waiting === 0
    )
    await settle(svc, id, 1)
    expect(readFileSync(join(inbox, 'clipdesk-out', 'a.cut-out.png')).equals(v2)).toBe(true)
    expect(existsSync(join(inbox, 'clipdesk-out', 'a.cut-out-1.png'))).toBe(false)

    // Rename: same bytes under a new name → skipped (its result already exists as a.cut-out.png).
    renameSync(join(inbox, 'a.png'), join(inbox, 'renamed.png'))
    await waitFor('renamed skipped', () => svc.view(id)!.counts.skipped === 1)
    await settle(svc, id, 2)
    expect(fake.submittedTimes(v2)).toBe(1)
    expect(svc.view(id)!.recent.find((e) => e.kind === 'skipped')).toMatchObject({ rel_path: 'renamed.png' })
    expect(svc.store.fileByPath(id, 'renamed.png')).toMatchObject({ state: 'skipped', duplicateOf: 'a.png' })

    // A skipped file can be forced through with a retry.
    const skipped = svc.store.fileByPath(id, 'renamed.png')!
    expect((await svc.retry({ folder_id: id, file_id: skipped.id })).retried).toBe(1)
    await waitFor(
      'renamed processed on request',
      () => fake.submittedTimes(v2) === 2 && svc.store.fileByPath(id, 'renamed.png')?.state === 'done'
    )
    expect(readFileSync(join(inbox, 'clipdesk-out', 'renamed.cut-out.png')).equals(v2)).toBe(true)
  })

  it('the same content twice at once is processed once (the second is skipped)', async () => {
    const svc = service()
    await svc.start()
    const { id } = await svc.add({ path: inbox })
    const img = await tinyImage(41)
    writeFileSync(join(inbox, 'x.png'), img)
    writeFileSync(join(inbox, 'x copy.png'), img)
    await waitFor('both settled', () => {
      const c = svc.view(id)!.counts
      return c.done + c.skipped === 2
    })
    expect(fake.submittedTimes(img)).toBe(1)
  })
})

describe('sub-folders', () => {
  it('with recursion on, files in sub-folders are processed and the structure is mirrored', async () => {
    const svc = service()
    await svc.start()
    const { id } = await svc.add({ path: inbox, recursive: true })
    mkdirSync(join(inbox, 'day1', 'am'), { recursive: true })
    writeFileSync(join(inbox, 'top.png'), await tinyImage(51))
    writeFileSync(join(inbox, 'day1', 'am', 'deep.png'), await tinyImage(52))
    await waitFor('2 done', () => svc.view(id)!.counts.done === 2)
    expect(filesUnder(join(inbox, 'clipdesk-out'))).toEqual(['day1/am/deep.cut-out.png', 'top.cut-out.png'])
  })

  it('with recursion off, files in sub-folders are left alone', async () => {
    const svc = service()
    await svc.start()
    const { id } = await svc.add({ path: inbox, recursive: false })
    mkdirSync(join(inbox, 'day1'))
    writeFileSync(join(inbox, 'day1', 'deep.png'), await tinyImage(53))
    writeFileSync(join(inbox, 'top.png'), await tinyImage(54))
    await waitFor('top done', () => svc.view(id)!.counts.done === 1)
    await settle(svc, id, 1)
    expect(filesUnder(join(inbox, 'clipdesk-out'))).toEqual(['top.cut-out.png', 'zz-sentinel-1.cut-out.png'])
    expect(fake.submissions).toHaveLength(2)
  })

  it('ignores hidden, temporary and non-image files, and never takes its own outputs as inputs', async () => {
    const svc = service()
    await svc.start()
    const { id } = await svc.add({ path: inbox })
    const img = await tinyImage(55)
    for (const name of ['.hidden.png', 'download.png.crdownload', '~$lock.png', 'notes.txt', 'x.png.tmp', 'partial.part']) {
      writeFileSync(join(inbox, name), img)
    }
    mkdirSync(join(inbox, '.cache'))
    writeFileSync(join(inbox, '.cache', 'c.png'), img)
    writeFileSync(join(inbox, 'real.png'), img)
    await waitFor('real done', () => svc.view(id)!.counts.done === 1)
    await settle(svc, id, 1)
    expect(fake.submissions.map((s) => s.filename.split('/').at(-1)).sort()).toEqual(['real.png', 'zz-sentinel-1.png'])
  })
})

describe('failures and retry', () => {
  it('a job that fails is listed with its error; retry succeeds once the cause is fixed', async () => {
    const svc = service()
    await svc.start()
    const { id } = await svc.add({ path: inbox })
    let broken = true
    fake.fail = () => (broken ? { code: 'model_unavailable', message: 'The segmentation model could not be loaded.' } : null)
    writeFileSync(join(inbox, 'bad.png'), await tinyImage(61))
    await waitFor('bad failed', () => svc.view(id)!.counts.failed === 1)
    const view = svc.view(id)!
    expect(view.failed).toHaveLength(1)
    expect(view.failed[0]).toMatchObject({ rel_path: 'bad.png', state: 'failed', error: { code: 'model_unavailable' } })
    expect(view.recent[0]).toMatchObject({ kind: 'failed', rel_path: 'bad.png' })

    broken = false
    expect((await svc.retry({ folder_id: id })).retried).toBe(1)
    await waitFor('bad done after retry', () => svc.view(id)!.counts.done === 1)
    expect(svc.view(id)!.failed).toHaveLength(0)
    expect(existsSync(join(inbox, 'clipdesk-out', 'bad.cut-out.png'))).toBe(true)
  })

  it('an output folder that cannot be written fails the file; retry after it is fixed writes it', async () => {
    const svc = service()
    await svc.start()
    const blocked = join(root, 'out-blocked')
    const { id } = await svc.add({ path: inbox, output_dir: join(blocked, 'cutouts') })
    // Broken after it was checked: a file now stands where the output folder was.
    rmSync(blocked, { recursive: true })
    writeFileSync(blocked, 'a file where the output folder should be')
    writeFileSync(join(inbox, 'p.png'), await tinyImage(62))
    await waitFor('p failed', () => svc.view(id)!.counts.failed === 1)
    expect(svc.view(id)!.failed[0]!.error!.code).toBe('output_failed')
    expect(svc.view(id)!.failed[0]!.error!.message).toBe(
      `The result could not be written to ${join(blocked, 'cutouts')}: ${blocked} is a file, not a folder`
    )
    rmSync(blocked)
    await svc.retry({ folder_id: id, file_id: svc.view(id)!.failed[0]!.id })
    await waitFor('p done', () => svc.view(id)!.counts.done === 1)
    expect(filesUnder(join(blocked, 'cutouts'))).toEqual(['p.cut-out.png'])
  })

  it('a file that fails and is then replaced by good content is processed without a retry', async () => {
    const svc = service()
    await svc.start()
    const { id } = await svc.add({ path: inbox })
    fake.fail = (job) =>
      job.bytes.length < 100 ? { code: 'validation_failed', message: 'The file is not an image of a supported type.' } : null
    writeFileSync(join(inbox, 'q.png'), Buffer.from('not really a png'))
    await waitFor('q failed', () => svc.view(id)!.counts.failed === 1)
    writeFileSync(join(inbox, 'q.png'), await tinyImage(63, 'png', 64))
    await waitFor('q done', () => svc.view(id)!.counts.done === 1)
    expect(svc.view(id)!.counts.failed).toBe(0)
  })
})

describe('output names', () => {
  it('never writes outside the output folder, whatever the tokens hold', async () => {
    const svc = service()
    await svc.start()
    fake.process = async (bytes) => [
      { variation: '../../../escape', ext: 'png', bytes },
      { variation: 'mask', ext: '../x/../../y', bytes }
    ]
    const out = join(root, 'out')
    const { id } = await svc.add({ path: inbox, output_dir: out, name_template: '{preset}/{date}/{name}.{variation}.{ext}' })
    writeFileSync(join(inbox, 'evil..name.png'), await tinyImage(71))
    await waitFor('done', () => svc.view(id)!.counts.done === 1)
    const written = filesUnder(out)
    expect(written).toHaveLength(2)
    for (const f of written) expect(f.startsWith('cut-out/')).toBe(true)
    expect(
      filesUnder(root).filter(
        (f) => !f.startsWith('out/') && !f.startsWith('inbox/') && !f.startsWith('results/') && !f.startsWith('clipdesk.db')
      )
    ).toEqual([])
    expect(written.some((f) => f.split('/').includes('..'))).toBe(false)
  })

  it('gives colliding inputs distinct names and never overwrites a file it did not write', async () => {
    const svc = service()
    await svc.start()
    mkdirSync(join(inbox, 'clipdesk-out'))
    writeFileSync(join(inbox, 'clipdesk-out', 'mine.cut-out.png'), 'a file the user keeps here')
    const { id } = await svc.add({ path: inbox })
    const a = await tinyImage(81)
    const b = await tinyImage(82, 'jpeg')
    const c = await tinyImage(83)
    writeFileSync(join(inbox, 'same.png'), a)
    writeFileSync(join(inbox, 'same.jpg'), b)
    writeFileSync(join(inbox, 'mine.png'), c)
    await waitFor('3 done', () => svc.view(id)!.counts.done === 3)
    const out = filesUnder(join(inbox, 'clipdesk-out'))
    expect(out).toEqual(['mine.cut-out-1.png', 'mine.cut-out.png', 'same.cut-out-1.png', 'same.cut-out.png'])
    expect(readFileSync(join(inbox, 'clipdesk-out', 'mine.cut-out.png'), 'utf8')).toBe('a file the user keeps here')
    const sameOutputs = [
      readFileSync(join(inbox, 'clipdesk-out', 'same.cut-out.png')),
      readFileSync(join(inbox, 'clipdesk-out', 'same.cut-out-1.png'))
    ]
    expect(sameOutputs.some((o) => o.equals(a))).toBe(true)
    expect(sameOutputs.some((o) => o.equals(b))).toBe(true)
  })
})

describe('originals', () => {
  it('moves processed originals to clipdesk-done; the same photo dropped again is skipped and moved too', async () => {
    const svc = service()
    await svc.start()
    const { id } = await svc.add({ path: inbox, originals: 'move' })
    const img = await tinyImage(91)
    writeFileSync(join(inbox, 'p.png'), img)
    await waitFor('p moved', () => existsSync(join(inbox, 'clipdesk-done', 'p.png')))
    expect(existsSync(join(inbox, 'p.png'))).toBe(false)
    writeFileSync(join(inbox, 'p.png'), img)
    await waitFor('second p moved', () => existsSync(join(inbox, 'clipdesk-done', 'p-1.png')))
    expect(svc.view(id)!.counts).toMatchObject({ done: 1, skipped: 1 })
    expect(fake.submittedTimes(img)).toBe(1)
    // A different photo with the same name is a new input: it gets its own output name.
    const other = await tinyImage(92)
    writeFileSync(join(inbox, 'p.png'), other)
    await waitFor('third p moved', () => existsSync(join(inbox, 'clipdesk-done', 'p-2.png')))
    expect(filesUnder(join(inbox, 'clipdesk-out'))).toEqual(['p.cut-out-1.png', 'p.cut-out.png'])
    expect(svc.view(id)!.counts).toMatchObject({ done: 2, skipped: 1 })
    expect(filesUnder(inbox).filter((f) => !f.startsWith('clipdesk-'))).toEqual([])
  })
})

describe('pause, resume, remove', () => {
  it('a paused folder takes nothing; on resume it catches up', async () => {
    const svc = service()
    await svc.start()
    const { id } = await svc.add({ path: inbox })
    expect((await svc.pause(id)).state).toBe('paused')
    // No runner exists for a paused folder: nothing can see the file until resume.
    writeFileSync(join(inbox, 'later.png'), await tinyImage(101))
    expect(svc.view(id)!.counts).toMatchObject({ waiting: 0, processing: 0, done: 0 })
    expect((await svc.resume(id)).paused).toBe(false)
    await waitFor('later done', () => svc.view(id)!.counts.done === 1)
    await svc.remove(id)
    expect(svc.view(id)).toBeNull()
    expect(svc.list()).toEqual([])
  })
})

describe('an unavailable folder', () => {
  it('is shown unavailable while missing and watched again once it is back', async () => {
    const svc = service({ rescanMs: 300 })
    await svc.start()
    const { id } = await svc.add({ path: inbox })
    await waitFor('active', () => svc.view(id)!.state === 'active')
    rmSync(inbox, { recursive: true, force: true })
    await waitFor('unavailable', () => svc.view(id)!.state === 'unavailable')
    expect(svc.view(id)!.state_message).toContain('missing')
    mkdirSync(inbox)
    writeFileSync(join(inbox, 'back.png'), await tinyImage(111))
    await waitFor('active again and the file done', () => svc.view(id)!.state === 'active' && svc.view(id)!.counts.done === 1)
  })
})
