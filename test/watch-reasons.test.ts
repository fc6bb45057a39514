/**
 * A watched folder says why, in plain words, about every file it does not turn into a result:
 * a text file dropped in is "not an image" (once, not at every rescan), a JPEG cut short is
 * first waited for and then listed as damaged ("This JPEG is damaged: it ends early") with the
 * decoder's own text as the detail; an output folder that cannot be made is refused when the
 * folder is added. The real engine (its decoder gives the real message).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, expect, it } from 'vitest'
import { Engine } from '../src/main/engine/engine'
import { EngineError } from '../src/main/engine/errors'
import { engineProcessor } from '../src/main/watch/processor'
import { NOT_AN_IMAGE_NOTE, WatchService } from '../src/main/watch/service'
import { tempDir } from './helpers/engine'
import { waitFor } from './helpers/watch'

const root = tempDir('clipdesk-watch-reasons-')
const engine = new Engine({ dataDir: join(root, 'data') })
engine.start()
const services: WatchService[] = []
afterAll(async () => {
  for (const s of services) await s.stop()
  await engine.stop()
  rmSync(root, { recursive: true, force: true })
})

function service(): WatchService {
  const svc = new WatchService({
    tables: engine.featureTables(),
    processor: engineProcessor(engine),
    stableMs: 300,
    pollMs: 30,
    syncMs: 100,
    incompleteGraceMs: 500,
    log: () => undefined
  })
  services.push(svc)
  return svc
}

it('says a text file is not an image and a cut-short JPEG is damaged, with the reason', async () => {
  const inbox = join(root, 'inbox')
  mkdirSync(inbox)
  let svc = service()
  await svc.start()
  const { id } = await svc.add({ path: inbox })
  const jpeg = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#c04040' } })
    .jpeg({ quality: 90 })
    .toBuffer()
  writeFileSync(join(inbox, 'notes.txt'), 'a note, not a photo')
  writeFileSync(join(inbox, 'cut.jpg'), jpeg.subarray(0, Math.floor(jpeg.length * 0.6)))

  await waitFor('the text file said to be no image', () => svc.view(id)!.recent.some((a) => a.rel_path === 'notes.txt'))
  expect(svc.view(id)!.recent.find((a) => a.rel_path === 'notes.txt')).toMatchObject({ kind: 'skipped', message: NOT_AN_IMAGE_NOTE })
  await waitFor('the cut-short JPEG listed as failed', () => svc.view(id)!.counts.failed === 1, 180_000)
  const view = svc.view(id)!
  // First waited for, as a file still being written would be; then tried, and damaged.
  expect(view.recent.find((a) => a.rel_path === 'cut.jpg' && a.kind === 'note')?.message).toMatch(
    /^looks cut short \(its end is missing\): waiting up to 1 s/
  )
  expect(view.failed[0]).toMatchObject({
    rel_path: 'cut.jpg',
    error: {
      message: 'This JPEG is damaged: it ends early (the file was cut short)',
      detail: expect.stringContaining('premature end of JPEG')
    }
  })
  expect(view.recent.find((a) => a.rel_path === 'cut.jpg' && a.kind === 'failed')?.message).toBe(
    'This JPEG is damaged: it ends early (the file was cut short)'
  )
  expect(view.counts).toMatchObject({ done: 0, failed: 1 })

  // A restart scans the folder again: the text file is not said twice.
  await svc.stop()
  svc = service()
  await svc.start()
  writeFileSync(join(inbox, 'other.txt'), 'another note')
  await waitFor('the second text file said', () => svc.view(id)!.recent.some((a) => a.rel_path === 'other.txt'))
  expect(svc.view(id)!.recent.filter((a) => a.rel_path === 'notes.txt')).toHaveLength(1)
})

it('refuses an output folder that cannot be made when the folder is added, in plain words', async () => {
  const inbox = join(root, 'inbox-2')
  mkdirSync(inbox)
  const svc = service()
  await svc.start()
  const blocked = join(root, 'out-refused')
  writeFileSync(blocked, 'a file where the output folder should be')
  const err = await svc.add({ path: inbox, output_dir: join(blocked, 'cutouts') }).catch((e: unknown) => e)
  expect(err).toBeInstanceOf(EngineError)
  expect((err as EngineError).details).toEqual([{ field: 'output_dir', issue: `${blocked} is a file, not a folder` }])
  expect(svc.list().map((f) => f.path)).not.toContain(inbox)
})
