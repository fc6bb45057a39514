/**
 * Watched folders on the real engine (model, SQLite, durable queue): outputs are real
 * cutouts, a job in flight when everything stops is resumed by the engine and re-attached by
 * its id, files added while stopped are picked up, a file the engine refuses is listed as
 * failed and is processed once replaced by a good image. Few images: each costs a model run.
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, expect, it } from 'vitest'
import { Engine } from '../src/main/engine/engine'
import { engineProcessor } from '../src/main/watch/processor'
import { WatchService } from '../src/main/watch/service'
import { tempDir } from './helpers/engine'
import { sceneJpeg, scenePng } from './helpers/fixtures'
import { filesUnder, waitFor } from './helpers/watch'
import { withDataFolderDb } from './helpers/data-folder'

/** A tiny PNG with a real alpha channel (a disc), distinct for each `n`: `alpha=keep` skips the model. */
async function discPng(n: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><circle cx="16" cy="16" r="${6 + (n % 9)}" fill="rgb(${n & 0xff},${(n * 7) & 0xff},120)"/></svg>`
  return sharp(Buffer.from(svg)).png().toBuffer()
}

const root = tempDir('clipdesk-watch-engine-')
afterAll(() => rmSync(root, { recursive: true, force: true }))

function startBoth(dataDir: string): { engine: Engine; svc: WatchService } {
  const engine = new Engine({ dataDir })
  engine.start()
  const svc = new WatchService({
    tables: engine.featureTables(),
    processor: engineProcessor(engine),
    stableMs: 300,
    pollMs: 30,
    syncMs: 100,
    log: () => undefined
  })
  return { engine, svc }
}

function watchJobs(engine: Engine): { source: string; status: string }[] {
  return withDataFolderDb(
    engine.options.dataDir,
    (db) =>
      db.prepare("SELECT source, status FROM jobs WHERE source LIKE 'watch/%' ORDER BY seq").all() as {
        source: string
        status: string
      }[]
  )
}

it('cuts out dropped photos, survives a stop mid-job, and lists then recovers a bad file', async () => {
  const data = join(root, 'data')
  const inbox = join(root, 'inbox')
  mkdirSync(inbox)
  const png = await scenePng()
  const small = await sharp(png).resize(200).png().toBuffer()
  const flopped = await sharp(png).flop().png().toBuffer()

  let { engine, svc } = startBoth(data)
  await svc.start()
  const { id } = await svc.add({ path: inbox })
  writeFileSync(join(inbox, 'ball.png'), png)
  writeFileSync(join(inbox, 'broken.png'), Buffer.from('this is not an image at all'))
  // The second photo only once the first is in flight: dropped together, the two equal jobs could
  // run side by side and end within one sync of each other, and the state below never showed.
  await waitFor('the first photo in flight', () => svc.view(id)!.counts.processing >= 1)
  writeFileSync(join(inbox, 'ball-jpeg.jpg'), await sceneJpeg())
  await waitFor('one done and one more in flight', () => {
    const c = svc.view(id)!.counts
    return c.done >= 1 && c.processing >= 1
  })
  // Stop everything while a job is queued or running.
  await svc.stop()
  await engine.stop()

  writeFileSync(join(inbox, 'while-stopped.png'), small)
  ;({ engine, svc } = startBoth(data))
  await svc.start()
  try {
    await waitFor('three done, one failed', () => {
      const c = svc.view(id)!.counts
      return c.done === 3 && c.failed === 1 && c.processing === 0 && c.waiting === 0
    })
    const failed = svc.view(id)!.failed
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatchObject({ rel_path: 'broken.png', error: { code: 'validation_failed' } })
    expect(failed[0]!.error!.message).toContain('not an image')

    // The cause is fixed by replacing the file: new content is processed without a retry.
    writeFileSync(join(inbox, 'broken.png'), flopped)
    await waitFor('broken.png done', () => svc.view(id)!.counts.done === 4)
    expect(svc.view(id)!.failed).toEqual([])

    const outDir = join(inbox, 'clipdesk-out')
    expect(filesUnder(outDir)).toEqual(['ball-jpeg.cut-out.png', 'ball.cut-out.png', 'broken.cut-out.png', 'while-stopped.cut-out.png'])
    for (const f of filesUnder(outDir)) {
      const meta = await sharp(join(outDir, f)).metadata()
      expect(meta.channels, f).toBe(4)
    }
    // Exactly one job per input: the stop neither lost nor repeated one.
    const jobs = watchJobs(engine)
    expect(jobs.map((j) => j.source.split('/').at(-1)).sort()).toEqual(['ball-jpeg.jpg', 'ball.png', 'broken.png', 'while-stopped.png'])
    expect(jobs.every((j) => j.status === 'done')).toBe(true)
  } finally {
    await svc.stop()
    await engine.stop()
  }
})

it('takes 100 files dropped at once through the real engine exactly once, across a stop in the middle', async () => {
  const data = join(root, 'data-100')
  const inbox = join(root, 'inbox-100')
  mkdirSync(inbox)
  const staging = join(root, 'staging-100')
  mkdirSync(staging)
  const names: string[] = []
  for (let i = 0; i < 100; i++) {
    const name = `p${String(i).padStart(3, '0')}.png`
    writeFileSync(join(staging, name), await discPng(i))
    names.push(name)
  }
  let { engine, svc } = startBoth(data)
  await svc.start()
  // Real alpha + alpha=keep: the engine skips the model, so 100 jobs are cheap but real.
  const { id } = await svc.add({ path: inbox, mode: 'params', params: 'alpha=keep;variations=clipping' })
  for (const name of names) copyFileSync(join(staging, name), join(inbox, name))
  await waitFor('a third done', () => svc.view(id)!.counts.done >= 30)
  await svc.stop()
  await engine.stop()
  ;({ engine, svc } = startBoth(data))
  await svc.start()
  try {
    await waitFor('100 done', () => svc.view(id)!.counts.done === 100)
    expect(svc.view(id)!.counts).toMatchObject({ waiting: 0, processing: 0, failed: 0, skipped: 0, done: 100 })
    const outputs = filesUnder(join(inbox, 'clipdesk-out'))
    expect(outputs).toEqual(names.map((n) => n.replace('.png', '.cut-out.png')))
    const jobs = watchJobs(engine)
    expect(jobs).toHaveLength(100)
    expect(new Set(jobs.map((j) => j.source.split('/').at(-1))).size).toBe(100)
    const meta = await sharp(join(inbox, 'clipdesk-out', 'p007.cut-out.png')).metadata()
    expect(meta.channels).toBe(4)
  } finally {
    await svc.stop()
    await engine.stop()
  }
})

it('writes the primary variation of a preset only, every named variation when the set names them', async () => {
  const { engine, svc } = startBoth(join(root, 'data-primary'))
  await svc.start()
  try {
    const preset = join(root, 'inbox-preset')
    const named = join(root, 'inbox-named')
    mkdirSync(preset)
    mkdirSync(named)
    // alpha=keep: the disc's own alpha is the mask, so ecommerce-white's four variations are cheap but real.
    const a = await svc.add({ path: preset, mode: 'params', params: 'ecommerce-white;alpha=keep', name_template: '{name}.{ext}' })
    const b = await svc.add({ path: named, mode: 'params', params: 'ecommerce-white;alpha=keep;variations=clipping,shadowTop' })
    writeFileSync(join(preset, 'disc.png'), await discPng(5))
    writeFileSync(join(named, 'disc.png'), await discPng(5))
    await waitFor('both done', () => svc.view(a.id)!.counts.done === 1 && svc.view(b.id)!.counts.done === 1)
    expect(filesUnder(join(preset, 'clipdesk-out'))).toEqual(['disc.png'])
    const meta = await sharp(join(preset, 'clipdesk-out', 'disc.png')).metadata()
    expect([meta.width, meta.height]).toEqual([2000, 2000]) // the shadowed composite, the preset's primary
    expect(filesUnder(join(named, 'clipdesk-out'))).toEqual(['disc.cut-out.png', 'disc.with-shadow.png'])
    // The API still lists every variation the job made.
    expect(withDataFolderDb(engine.options.dataDir, (db) => db.prepare('SELECT count(*) AS n FROM results').get())).toMatchObject({ n: 6 })
  } finally {
    await svc.stop()
    await engine.stop()
  }
})

it("the activity line describes the file written: a shadow on beige as JPG carries no word about the cut-out's flattening", async () => {
  const data = join(root, 'data-words')
  const inbox = join(root, 'inbox-words')
  mkdirSync(inbox)
  const { engine, svc } = startBoth(data)
  await svc.start()
  try {
    const { id } = await svc.add({
      path: inbox,
      mode: 'params',
      params: 'background=beige;shadow=top;primary=shadowTop',
      output_format: 'jpg'
    })
    writeFileSync(join(inbox, 'ball.png'), await scenePng())
    await waitFor('ball.png done', () => svc.view(id)!.counts.done === 1)
    expect(filesUnder(join(inbox, 'clipdesk-out'))).toEqual(['ball.with-shadow.jpg'])
    // The job flattened its (unwritten) cut-out onto white for JPG; the API says so, the activity does not.
    const job = withDataFolderDb(data, (db) => db.prepare("SELECT id FROM jobs WHERE source LIKE 'watch/%'").get() as { id: string })
    expect(engine.job(job.id)!.warnings.clipping).toEqual(['the clipping variation was flattened onto white: jpg has no transparency'])
    const line = svc.view(id)!.recent.find((a) => a.kind === 'done')!
    expect(line).toMatchObject({ rel_path: 'ball.png', message: '→ ball.with-shadow.jpg' })
  } finally {
    await svc.stop()
    await engine.stop()
  }
})
