/**
 * Batches say what happened: a stopped batch counts done, stopped while running and not
 * started ("Stopped: 1 done, 4 not started"), a batch whose every file failed is "Failed",
 * never a full bar; a retried file keeps its real error until the retry ends; the destination
 * is checked once, before any file is sent, with the problem in plain words; the number of
 * files announced is the total from the start. Real engine, real model, real files.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { batchOutcome } from '../src/shared/batches'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { EngineError } from '../src/main/engine/errors'
import { scenePng } from './helpers/fixtures'
import { tempDir } from './helpers/engine'
import { readOnlyFolder } from './helpers/read-only'
import { CLIPPING, address, settled, until } from './helpers/batches'
import { ERROR_STATUS } from '../src/shared/errors'

let root: string
let engine: Engine
let service: BatchService
beforeAll(() => {
  root = tempDir('clipdesk-batch-states-')
  engine = new Engine({ dataDir: join(root, 'data') })
  engine.start()
  service = new BatchService(engine)
  service.start()
})
afterAll(async () => {
  await service.stop()
  await engine.stop()
  rmSync(root, { recursive: true, force: true })
})

async function refusal(p: Promise<unknown>): Promise<EngineError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e
  )
  expect(err).toBeInstanceOf(EngineError)
  return err as EngineError
}

describe('the destination, checked once before anything is sent', () => {
  it.each([
    [
      'a folder under /proc (a recursive mkdir there never returns)',
      () => '/proc/clipdesk/out',
      () => 'The folder /proc/clipdesk cannot be made: /proc does not take new folders'
    ],
    ['a file where a folder should be', () => join(root, 'a-file', 'out'), () => `${join(root, 'a-file')} is a file, not a folder`]
  ])('refuses %s with 422 and the reason in plain words', async (_name, dest, message) => {
    writeFileSync(join(root, 'a-file'), 'a file')
    const err = await refusal(service.create({ request: CLIPPING, destination: dest() }))
    expect(ERROR_STATUS[err.code]).toBe(422)
    expect(err.code).toBe('validation_failed')
    expect(err.message).toBe(message())
    expect(err.details?.[0]).toEqual({ field: 'destination', issue: message() })
  })

  it('refuses a read-only folder as read-only, the system text as a second detail', async (ctx) => {
    const ro = readOnlyFolder()
    if (!ro) return ctx.skip('no folder refuses writes on this machine')
    const err = await refusal(service.create({ request: CLIPPING, destination: ro }))
    expect(err.message).toBe(`The folder is read-only: ${ro}`)
    expect(err.details).toEqual([
      { field: 'destination', issue: `The folder is read-only: ${ro}` },
      { field: 'destination.system', issue: expect.stringMatching(/^E(ACCES|ROFS|PERM):/) }
    ])
  })

  it('refuses a batch whose estimated output does not fit, and keeps the count announced as its total', async () => {
    const err = await refusal(service.create({ request: CLIPPING, destination: join(root, 'big'), expected: { files: 3, bytes: 2 ** 60 } }))
    expect(err.message).toMatch(/^Not enough space on the disk of /)
    const ok = await service.create({ request: CLIPPING, destination: join(root, 'fits'), expected: { files: 3, bytes: 3000 } })
    expect(ok.expected_files).toBe(3)
    expect(ok.counts.total).toBe(0)
  })
})

describe('end states', () => {
  it('a batch stopped after its first file says done, stopped and not started; never a full bar', async () => {
    const png = await scenePng()
    const dir = join(root, 'in-stop')
    mkdirSync(dir)
    for (let i = 0; i < 6; i++)
      writeFileSync(
        join(dir, `p${i}.png`),
        await sharp(png)
          .resize(240 + 16 * i)
          .png()
          .toBuffer()
      )
    const batch = await service.create({ request: CLIPPING, destination: join(root, 'out-stop'), expected: { files: 6, bytes: 6000 } })
    await service.add(batch.id, [{ path: dir }])
    await until(service, batch.id, (s) => s.counts.done >= 1)
    service.cancel({ batch_id: batch.id })
    const s = await until(service, batch.id, settled)
    const c = s.counts
    expect(c.done + c.cancelled).toBe(6)
    expect(c.not_started).toBeGreaterThanOrEqual(1)
    const outcome = batchOutcome(s)
    expect(outcome.kind).toBe('stopped')
    const cut = c.cancelled - c.not_started
    expect(outcome.title).toBe(`Stopped: ${c.done} done${cut ? `, ${cut} stopped while running` : ''}, ${c.not_started} not started`)
    expect(outcome.bar).toBe(Math.floor((100 * c.done) / 6))
    expect(outcome.bar).toBeLessThan(100)
  })

  it('a batch whose every file failed is "Failed" with an empty bar, each file said in plain words', async () => {
    const dir = join(root, 'in-fail')
    mkdirSync(dir)
    writeFileSync(join(dir, 'a.png'), 'not a png')
    writeFileSync(join(dir, 'b.jpg'), 'not a jpeg')
    const batch = await service.create({ request: CLIPPING, destination: join(root, 'out-fail') })
    await service.add(batch.id, [{ path: dir }])
    const s = await until(service, batch.id, settled)
    expect(batchOutcome(s)).toEqual({ kind: 'failed', title: 'Failed: none of the 2 files could be made', bar: 0 })
    const items = service.detail(batch.id, address).items
    expect(items.map((i) => i.error)).toEqual([
      'This file is not an image Clipdesk reads (PNG, JPEG, WebP, GIF, AVIF, TIFF, PSD or SVG)',
      'This file is not an image Clipdesk reads (PNG, JPEG, WebP, GIF, AVIF, TIFF, PSD or SVG)'
    ])
    expect(items[0]!.error_detail).toContain('not an image of a supported type')
  })
})

describe('retry', () => {
  it('keeps the real error visible until the retry ends, then clears it', async () => {
    const dir = join(root, 'in-retry')
    mkdirSync(dir)
    writeFileSync(join(dir, 'p.png'), 'not yet a photo')
    const batch = await service.create({ request: CLIPPING, destination: join(root, 'out-retry') })
    await service.add(batch.id, [{ path: dir }])
    await until(service, batch.id, settled)
    const failed = service.detail(batch.id, address).items[0]!
    expect(failed.state).toBe('failed')
    writeFileSync(join(dir, 'p.png'), await scenePng())
    await service.retry({ batch_id: batch.id, item_id: failed.id })
    const running = service.detail(batch.id, address).items[0]!
    expect(running.state).toBe('pending')
    expect(running.error).toBe(failed.error) // why the last try failed, while it runs again
    const s = await until(service, batch.id, (x) => x.counts.done === 1)
    expect(s.counts.failed).toBe(0)
    expect(service.detail(batch.id, address).items[0]!.error).toBeNull()
  })

  it('an upload whose original is no longer kept is not retried: it keeps its own error and the retry says why', async () => {
    const batch = await service.create({ request: CLIPPING, destination: join(root, 'out-gone') })
    // A JPEG cut short: accepted (its header is a JPEG's), kept by the engine, and failed by the decoder.
    const jpeg = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#3060a0' } })
      .jpeg()
      .toBuffer()
    await service.add(batch.id, [{ bytes: new Uint8Array(jpeg.subarray(0, Math.floor(jpeg.length * 0.6))), rel_path: 'upload.jpg' }])
    await until(service, batch.id, settled)
    const item = service.detail(batch.id, address).items[0]!
    expect(item.error).toBe('This JPEG is damaged: it ends early (the file was cut short)')
    rmSync(engine.job(item.job_id!)!.inputPath!, { force: true }) // swept after the retention time
    const err = await refusal(service.retry({ batch_id: batch.id, item_id: item.id }))
    expect(ERROR_STATUS[err.code]).toBe(404)
    expect(err.code).toBe('not_found')
    expect(err.message).toBe(
      'This file cannot be retried: the uploaded original is no longer kept (uploads are kept for the retention time). Add it to a batch again.'
    )
    const after = service.detail(batch.id, address).items[0]!
    expect(after.state).toBe('failed')
    expect(after.error).toBe(item.error)
  })
})
