/**
 * Touch-up of a done file of a watched folder through the app API, with the real engine, model,
 * sandbox, sharp and chokidar on temporary folders: the preview with strokes, Save replacing the
 * file's result in the output folder (inside the watched folder: its own watcher never takes it)
 * with the previous version kept beside it, the file's record and the folder's activity saying
 * so; a second watched folder that takes the first one's results as its inputs sees the
 * replaced result as a new version and passes over the kept previous one; every refusal with
 * its exact status and code.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IpcHandlers } from '../src/shared/ipc'
import type { TouchUpTarget } from '../src/shared/touchup'
import type { WatchFolderView } from '../src/shared/watch'
import { createAppApi, type AppHost } from '../src/main/app-api/app-api'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { EngineError } from '../src/main/engine/errors'
import { engineProcessor } from '../src/main/watch/processor'
import { WatchService } from '../src/main/watch/service'
import { SCENE, scenePng } from './helpers/fixtures'
import { tempDir } from './helpers/engine'
import { address } from './helpers/batches'
import { filesUnder, waitFor } from './helpers/watch'
import { withDataFolderDb } from './helpers/data-folder'
import { ERROR_STATUS } from '../src/shared/errors'

const { width, height } = SCENE
/** A background rectangle (right of the ball) marked keep, and the ball's middle marked remove: [x, y, w, h]. */
const KEEP = [420, 30, 60, 60] as const
const REMOVE = [200, 160, 60, 60] as const

async function hintPng(): Promise<string> {
  const grey = Buffer.alloc(width * height, 128)
  for (const [[x0, y0, rw, rh], v] of [
    [KEEP, 255],
    [REMOVE, 0]
  ] as const) {
    for (let y = y0; y < y0 + rh; y++) grey.fill(v, y * width + x0, y * width + x0 + rw)
  }
  return (
    await sharp(grey, { raw: { width, height, channels: 1 } })
      .png()
      .toBuffer()
  ).toString('base64')
}

function meanIn(plane: Buffer, [x0, y0, rw, rh]: readonly number[]): number {
  let sum = 0
  for (let y = y0!; y < y0! + rh!; y++) for (let x = x0!; x < x0! + rw!; x++) sum += plane[y * width + x]!
  return sum / (rw! * rh!)
}

const alphaOf = (file: string | Buffer): Promise<Buffer> => sharp(file).ensureAlpha().extractChannel(3).raw().toBuffer()

/** Resolves to the EngineError a call is refused with (null when it was not). */
const refusal = (call: Promise<unknown>): Promise<EngineError | null> =>
  call.then(
    () => null,
    (e: unknown) => e as EngineError
  )

let root: string
let engine: Engine
let batches: BatchService
let watch: WatchService
let api: IpcHandlers

beforeAll(() => {
  root = tempDir('clipdesk-watch-touchup-')
  engine = new Engine({ dataDir: join(root, 'data') })
  engine.start()
  batches = new BatchService(engine)
  watch = new WatchService({
    tables: engine.featureTables(),
    processor: engineProcessor(engine),
    stableMs: 300,
    pollMs: 30,
    syncMs: 100,
    log: () => undefined
  })
  // The host is not used by the touch-up methods.
  api = createAppApi({ engine, batches, host: {} as AppHost, address, watch })
})
afterAll(async () => {
  await watch.stop()
  await engine.stop()
  rmSync(root, { recursive: true, force: true })
})

/** The watch's own jobs (submitted as `watch/…`); a touch-up's job is not one of them. */
function watchJobs(): string[] {
  return withDataFolderDb(
    engine.options.dataDir,
    (db) => db.prepare("SELECT source FROM jobs WHERE source LIKE 'watch/%' ORDER BY seq").all() as { source: string }[]
  ).map((j) => j.source)
}

describe('touch-up of a watched folder file', () => {
  let inbox: string
  let folder: WatchFolderView
  let target: TouchUpTarget & { kind: 'watch' }
  let result: string

  beforeAll(async () => {
    inbox = join(root, 'inbox')
    mkdirSync(inbox)
    await watch.start()
    // The default output folder, `clipdesk-out`, is inside the watched folder.
    folder = await watch.add({ path: inbox })
    writeFileSync(join(inbox, 'ball.png'), await scenePng())
    await waitFor('ball.png done', () => watch.view(folder.id)!.counts.done === 1)
    const file = watch.view(folder.id)!.done[0]!
    expect(file).toMatchObject({ rel_path: 'ball.png', state: 'done', touch_ups: 0, touched_up_at: null })
    target = { kind: 'watch', folder_id: folder.id, file_id: file.id }
    result = join(inbox, 'clipdesk-out', 'ball.cut-out.png')
    expect(file.outputs).toEqual([result])
  }, 240_000)

  it('previews the cutout with the strokes, from the cached mask', async () => {
    const plain = await api.touchUpPreview({ target })
    expect([plain.width, plain.height]).toEqual([width, height])
    expect(meanIn(await alphaOf(Buffer.from(plain.png, 'base64')), REMOVE)).toBeGreaterThan(200)
    const hinted = await api.touchUpPreview({ target, hint: await hintPng() })
    const alpha = await alphaOf(Buffer.from(hinted.png, 'base64'))
    expect(meanIn(alpha, REMOVE)).toBeLessThanOrEqual(25)
    expect(meanIn(alpha, KEEP)).toBeGreaterThanOrEqual(230)
  })

  it('Save replaces the result, keeps the previous beside it, records it, and the folder takes neither as a new input', async () => {
    const original = readFileSync(result)
    const jobsBefore = watchJobs()

    const res = await api.touchUp({ target, hint: await hintPng() })
    const kept = join(inbox, 'clipdesk-out', 'ball.cut-out.prev-1.png')
    expect(res).toEqual({ outputs: [result], previous: [kept], touch_ups: 1 })
    expect(readFileSync(kept).equals(original)).toBe(true)
    const alpha = await alphaOf(result)
    expect(meanIn(alpha, REMOVE)).toBeLessThanOrEqual(25)
    expect(meanIn(alpha, KEEP)).toBeGreaterThanOrEqual(230)

    await waitFor('the folder view says so', () => watch.view(folder.id)!.done[0]!.touch_ups === 1)
    const view = watch.view(folder.id)!
    expect(view.done[0]).toMatchObject({ id: target.file_id, state: 'done', outputs: [result], touch_ups: 1 })
    expect(view.done[0]!.touched_up_at).toBeTypeOf('number')
    expect(view.recent[0]).toMatchObject({ kind: 'touched_up', rel_path: 'ball.png' })
    expect(view.recent[0]!.message).toContain('ball.cut-out.prev-1.png')

    // A second touch-up keeps the first one's result as the next previous version.
    const touched = readFileSync(result)
    const again = await api.touchUp({ target, hint: await hintPng() })
    expect(again.previous).toEqual([join(inbox, 'clipdesk-out', 'ball.cut-out.prev-2.png')])
    expect(again.touch_ups).toBe(2)
    expect(readFileSync(again.previous[0]!).equals(touched)).toBe(true)

    // A file written after the touch-ups is made (the watcher runs), and nothing else was:
    // the replaced result and the kept ones were not taken as inputs of the folder.
    writeFileSync(
      join(inbox, 'after.png'),
      await sharp(await scenePng())
        .flop()
        .png()
        .toBuffer()
    )
    await waitFor('after.png done', () => watch.view(folder.id)!.counts.done === 2)
    expect(watch.store.filesOf(folder.id).map((f) => f.relPath)).toEqual(['ball.png', 'after.png'])
    expect(watch.view(folder.id)!.counts).toMatchObject({ done: 2, waiting: 0, processing: 0, failed: 0, skipped: 0 })
    expect(watchJobs()).toEqual([...jobsBefore, expect.stringContaining('after.png')])
  }, 240_000)

  it("a folder that takes another folder's results as inputs makes a touched-up result again and passes over the kept previous one", async () => {
    const source = join(root, 'source')
    const chain = join(root, 'chain')
    mkdirSync(source)
    mkdirSync(chain)
    // `chain` is watched; `source` writes its results into it (their alpha kept there: no model run).
    const chained = await watch.add({ path: chain, mode: 'params', params: 'alpha=keep;variations=clipping' })
    const out = join(chain, 'from-source')
    const first = await watch.add({ path: source, output_dir: out })
    writeFileSync(join(source, 'ball.png'), await scenePng())
    await waitFor('ball.png done', () => watch.view(first.id)!.counts.done === 1)
    await waitFor('the chained folder made its result', () => watch.view(chained.id)!.counts.done === 1)
    const file = watch.view(first.id)!.done[0]!
    const chainJobs = (): number => watchJobs().filter((s) => s.includes('ball.cut-out.png')).length
    expect(chainJobs()).toBe(1)

    const res = await api.touchUp({ target: { kind: 'watch', folder_id: first.id, file_id: file.id }, hint: await hintPng() })
    expect(res.previous).toEqual([join(out, 'ball.cut-out.prev-1.png')])
    // The replaced result is a new version of the chained folder's input: made again there.
    await waitFor(
      'the chained folder made the touched-up result again',
      () => chainJobs() === 2 && watch.view(chained.id)!.counts.processing === 0
    )
    expect(watch.view(chained.id)!.counts).toMatchObject({ done: 1, waiting: 0, processing: 0, failed: 0 })
    expect(watch.store.filesOf(chained.id).map((f) => f.relPath)).toEqual(['from-source/ball.cut-out.png'])
    expect(filesUnder(out)).toEqual(['ball.cut-out.png', 'ball.cut-out.prev-1.png'])
  }, 240_000)

  it('refuses what it cannot do, with the exact status and code', async () => {
    const hint = await hintPng()
    const expectRefused = async (call: Promise<unknown>, code: string, status: number, field?: string): Promise<void> => {
      const err = await refusal(call)
      expect(err, `expected ${code}`).toBeInstanceOf(EngineError)
      expect([err!.code, ERROR_STATUS[err!.code]]).toEqual([code, status])
      if (field) expect(err!.details?.[0]?.field).toBe(field)
    }
    // Unknown folder, unknown file, a file of another folder.
    await expectRefused(api.touchUp({ target: { ...target, folder_id: 'wf_nope' }, hint }), 'not_found', 404)
    await expectRefused(api.touchUpPreview({ target: { ...target, folder_id: 'wf_nope' } }), 'not_found', 404)
    await expectRefused(api.touchUp({ target: { ...target, file_id: 999_999 }, hint }), 'not_found', 404)
    await expectRefused(api.touchUpPreview({ target: { ...target, file_id: 999_999 } }), 'not_found', 404)
    const foreign = watch.list().flatMap((f) => (f.id === folder.id ? [] : f.done))[0]!
    await expectRefused(api.touchUp({ target: { ...target, file_id: foreign.id }, hint }), 'not_found', 404)
    // A file id that is not a number.
    await expectRefused(api.touchUp({ target: { ...target, file_id: 'x' }, hint } as never), 'validation_failed', 422, 'target.file_id')
    // A file that is not done: a failed one.
    writeFileSync(join(inbox, 'broken.png'), Buffer.from('this is not an image at all'))
    await waitFor('broken.png failed', () => watch.view(folder.id)!.counts.failed === 1)
    const broken = watch.view(folder.id)!.failed[0]!
    await expectRefused(api.touchUp({ target: { ...target, file_id: broken.id }, hint }), 'conflict', 409)
    await expectRefused(api.touchUpPreview({ target: { ...target, file_id: broken.id } }), 'conflict', 409)
    // A second Save while one is under way.
    const saving = api.touchUp({ target, hint })
    await expectRefused(api.touchUp({ target, hint }), 'conflict', 409)
    await saving
    // The folder's settings changed since the file was made: it is made again, a touch-up would be undone.
    await watch.update({ id: folder.id, output_format: 'webp' })
    await expectRefused(api.touchUp({ target, hint }), 'conflict', 409)
    await expectRefused(api.touchUpPreview({ target }), 'conflict', 409)
    expect(existsSync(result)).toBe(true)
  }, 240_000)
})
