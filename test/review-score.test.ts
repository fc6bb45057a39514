/**
 * The cutout's uncertainty score, end to end on the real engine (model, SQLite, files): the
 * status of a done job gives it, the same photo gets the same score, and batches, their
 * reports and watched folders carry it and count the cutouts to check (docs/review.md). Two
 * photos: the ball scene the model is sure of, and a flat grey photo with no subject, whose
 * cutout keeps nothing and so scores exactly TO_CHECK (the rule for empty cutouts).
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BatchService } from '../src/main/batches/service'
import { engineProcessor } from '../src/main/watch/processor'
import { WatchService } from '../src/main/watch/service'
import { TO_CHECK } from '../src/shared/review'
import { address, CLIPPING, settled, until } from './helpers/batches'
import { multipart, pollUntilSettled, startTestServer, tempDir, type TestServer } from './helpers/engine'
import { scenePng } from './helpers/fixtures'
import { json } from './helpers/http'
import { waitFor } from './helpers/wait'

let server: TestServer
let scene: Buffer
let flat: Buffer

beforeAll(async () => {
  server = await startTestServer()
  scene = await scenePng()
  flat = await sharp({ create: { width: 96, height: 64, channels: 3, background: '#808080' } })
    .png()
    .toBuffer()
})
afterAll(() => server.close())

async function submit(bytes: Buffer, name: string, fields: Record<string, string> = {}): Promise<string> {
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': server.key },
    body: multipart(fields, { bytes, type: 'image/png', name })
  })
  expect(res.status).toBe(202)
  return (await json(res)).job_id
}

describe('the status of a done job', () => {
  it('gives the uncertainty, 0 to 1, the same for the same photo, as the OpenAPI document describes it', async () => {
    const first = await pollUntilSettled(server, await submit(scene, 'ball.png'))
    const second = await pollUntilSettled(server, await submit(scene, 'ball-again.png', { delivery_mode: 'final_url' }))
    expect(first.body).toMatchObject({ status: 'done', uncertainty: expect.any(Number) })
    const u = first.body.uncertainty as number
    expect(u).toBeGreaterThanOrEqual(0)
    expect(u).toBeLessThanOrEqual(1)
    expect(Math.round(u * 1000) / 1000).toBe(u) // 3 decimals
    expect(u).toBeLessThan(TO_CHECK) // a crisp ball on a soft gradient: nothing to check
    // The review level beside the score: none for this one.
    expect(first.body.review).toEqual({ level: null, score: u })
    // Deterministic, and given with either delivery mode.
    expect(second.body.uncertainty).toBe(u)
    // Stored with the job: the store's value is what the status rounds.
    expect(Math.round(server.engine.job(first.body.job_id)!.uncertainty! * 1000) / 1000).toBe(u)

    const doc = await json(await fetch(server.url('/api/v1/openapi.json')))
    expect(doc.components.schemas.JobStatus.properties.uncertainty).toMatchObject({ type: 'number', minimum: 0, maximum: 1 })
    expect(doc.components.schemas.JobStatus.properties.review).toMatchObject({
      type: 'object',
      required: ['level', 'score'],
      properties: { level: { enum: ['likely_wrong', 'worth_a_look', null] }, score: { type: 'number', minimum: 0, maximum: 1 } }
    })
  })

  it('gives exactly TO_CHECK for a cutout that keeps nothing (a photo with no subject)', async () => {
    const { body } = await pollUntilSettled(server, await submit(flat, 'grey.png'))
    expect(body).toMatchObject({ status: 'done', uncertainty: TO_CHECK, review: { level: 'worth_a_look', score: TO_CHECK } })
  })

  it('has no uncertainty before the job is done', async () => {
    const queued = await startTestServer({ run: false })
    try {
      const res = await fetch(queued.url('/api/v1/upload'), {
        method: 'POST',
        headers: { 'X-API-Key': queued.key },
        body: multipart({}, { bytes: scene, type: 'image/png', name: 'ball.png' })
      })
      const jobId = (await json(res)).job_id
      const body = await json(await fetch(queued.url(`/api/v1/status?job_id=${jobId}`), { headers: { 'X-API-Key': queued.key } }))
      expect(body.status).toBe('queued')
      expect(body).not.toHaveProperty('uncertainty')
      expect(body).not.toHaveProperty('review')
    } finally {
      await queued.close()
    }
  })
})

describe('batches and watched folders', () => {
  it('keep each file’s score, count the cutouts to check, and the report lists them', async () => {
    const out = tempDir('clipdesk-review-batch-')
    const service = new BatchService(server.engine)
    service.start()
    try {
      const batch = await service.create({ request: CLIPPING, destination: out })
      await service.add(batch.id, [
        { bytes: scene, rel_path: 'ball.png' },
        { bytes: flat, rel_path: 'empty/grey.png' }
      ])
      const done = await until(service, batch.id, settled)
      expect(done.counts).toMatchObject({ total: 2, done: 2, to_check: 1, likely_wrong: 0, touched_up: 0 })
      const items = service.detail(batch.id, address).items
      const byName = Object.fromEntries(items.map((i) => [i.rel_path, i]))
      expect(byName['empty/grey.png']!.uncertainty).toBe(TO_CHECK)
      expect(byName['ball.png']!.uncertainty).toBeLessThan(TO_CHECK)

      await waitFor('the report', () => readdirSync(out).includes('clipdesk-report.txt'))
      const report = JSON.parse(readFileSync(join(out, 'clipdesk-report.json'), 'utf8'))
      expect(report.counts.to_check).toBe(1)
      // Every cutout with its score, most uncertain first.
      expect(report.cutouts).toEqual([
        { input: 'empty/grey.png', uncertainty: TO_CHECK, review: 'worth_a_look', to_check: true },
        { input: 'ball.png', uncertainty: byName['ball.png']!.uncertainty, review: null, to_check: false }
      ])
      const txt = readFileSync(join(out, 'clipdesk-report.txt'), 'utf8')
      expect(txt).toContain('1 cutout to check: 1 worth a look — look at them first')
      expect(txt).toContain(`To check (most uncertain first):\n  empty/grey.png: Worth a look · ${TO_CHECK.toFixed(2)}\n`)
    } finally {
      await service.stop()
      rmSync(out, { recursive: true, force: true })
    }
  })

  it('a watched folder keeps the score of each done file and lists those to check', async () => {
    const inbox = tempDir('clipdesk-review-watch-')
    const svc = new WatchService({
      tables: server.engine.featureTables(),
      processor: engineProcessor(server.engine),
      stableMs: 300,
      pollMs: 30,
      syncMs: 100,
      log: () => undefined
    })
    await svc.start()
    try {
      const { id } = await svc.add({ path: inbox })
      writeFileSync(join(inbox, 'ball.png'), scene)
      writeFileSync(join(inbox, 'grey.png'), flat)
      await waitFor('both files done', () => svc.view(id)!.counts.done === 2)
      const view = svc.view(id)!
      expect(view.counts).toMatchObject({ to_check: 1, likely_wrong: 0, touched_up: 0 })
      expect(view.to_check.map((f) => [f.rel_path, f.uncertainty])).toEqual([['grey.png', TO_CHECK]])
      expect(view.recent.find((a) => a.rel_path === 'grey.png' && a.kind === 'done')?.message).toContain(
        `· to check: Worth a look · ${TO_CHECK.toFixed(2)}`
      )
    } finally {
      await svc.stop()
      rmSync(inbox, { recursive: true, force: true })
    }
  })
})
