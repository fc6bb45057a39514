/**
 * Studio mode's coordinator, without the model: `clipdesk serve --queue` on a real Redis,
 * driven through `/api/v1/studio/*` by hand (the test plays the worker). Key kinds, every
 * reject path, the attempt limit (repeated worker deaths → failed and refunded), idempotent
 * result upload, and uploads answering 503 while Redis is down.
 */
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type Db } from '../src/main/engine/store/db'
import type { ServeProcess } from './helpers/cli'
import { multipart, tempDir } from './helpers/engine'
import { tinyPng } from './helpers/fixtures'
import { json } from './helpers/http'
import { REDIS_MISSING_MESSAGE, REDIS_SERVER, createKey, startCoordinator, startRedis, waitFor, type RedisProcess } from './helpers/studio'

if (!REDIS_SERVER) console.warn(REDIS_MISSING_MESSAGE)

describe.skipIf(!REDIS_SERVER)('studio coordinator protocol', () => {
  const data = tempDir()
  let redis: RedisProcess
  let serve: ServeProcess
  let owner: string
  let client: string
  let workerKey: string
  let db: Db
  const base = (): string => `http://127.0.0.1:${serve.port}`

  beforeAll(async () => {
    redis = await startRedis()
    owner = createKey(data, ['--admin', '--credits', 'unlimited'])
    client = createKey(data, ['--credits', '10'])
    workerKey = createKey(data, ['--worker', '--name', 'studio worker'])
    serve = await startCoordinator(data, redis.url)
    db = openDatabase(join(data, 'clipdesk.db'))
  })
  afterAll(async () => {
    db?.close()
    serve?.child.kill('SIGTERM')
    await serve?.exited
    await redis?.stop()
    rmSync(data, { recursive: true, force: true })
  })

  const upload = async (key = client): Promise<Response> =>
    fetch(`${base()}/api/v1/upload`, { method: 'POST', headers: { 'X-API-Key': key }, body: multipart({}, { bytes: await tinyPng(), type: 'image/png' }) })
  const studio = (path: string, body: unknown, key = workerKey): Promise<Response> =>
    fetch(`${base()}/api/v1/studio/${path}`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'X-Clipdesk-Worker': 'hand', 'X-Clipdesk-Device': 'cpu' },
      body: JSON.stringify(body)
    })
  const credits = (): number => Number((db.prepare("SELECT credits FROM api_keys WHERE kind = 'client' AND credits IS NOT NULL").get() as { credits: number }).credits)
  const ledger = (jobId: string): string[] =>
    (db.prepare('SELECT reason FROM credit_ledger WHERE job_id = ? ORDER BY id').all(jobId) as { reason: string }[]).map((r) => r.reason)
  const newJob = async (): Promise<string> => {
    const res = await upload()
    expect(res.status).toBe(202)
    return (await json(res)).job_id
  }

  it('keeps worker keys and client keys apart', async () => {
    const up = await upload(workerKey)
    expect(up.status).toBe(403)
    expect((await json(up)).error.code).toBe('forbidden')
    const st = await fetch(`${base()}/api/v1/status?job_id=00000000-0000-4000-8000-000000000000`, { headers: { 'X-API-Key': workerKey } })
    expect(st.status).toBe(403)
    expect((await json(st)).error.code).toBe('forbidden')
    const claimByClient = await studio('claim', { job_id: '00000000-0000-4000-8000-000000000000' }, client)
    expect(claimByClient.status).toBe(403)
    expect((await json(claimByClient)).error.code).toBe('forbidden')
    const noKey = await fetch(`${base()}/api/v1/studio/claim`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })
    expect(noKey.status).toBe(401)
    expect((await json(noKey)).error.code).toBe('unauthorized')
    const listByClient = await fetch(`${base()}/api/v1/studio/workers`, { headers: { 'X-API-Key': client } })
    expect(listByClient.status).toBe(403)
    expect((await json(listByClient)).error.code).toBe('forbidden')
  })

  it('refuses malformed worker calls with exact codes', async () => {
    const badId = await studio('claim', { job_id: '../x' })
    expect(badId.status).toBe(422)
    expect((await json(badId)).error.code).toBe('validation_failed')
    const notJson = await fetch(`${base()}/api/v1/studio/claim`, { method: 'POST', headers: { 'X-API-Key': workerKey, 'Content-Type': 'text/plain' }, body: 'x' })
    expect(notJson.status).toBe(400)
    expect((await json(notJson)).error.code).toBe('malformed_request')
    const id = await newJob()
    const badStage = await studio('progress', { job_id: id, stage: 'done' })
    expect(badStage.status).toBe(422)
    expect((await json(badStage)).error.code).toBe('validation_failed')
    const badVariation = await studio(`result/${id}`, { outputs: [{ variation: '../../x', ext: 'png', data: '' }] })
    expect(badVariation.status).toBe(422)
    expect((await json(badVariation)).error.code).toBe('validation_failed')
    const badSig = await fetch(`${base()}/api/v1/studio/input/${id}?expires=9999999999&sig=abc`, { headers: { 'X-API-Key': workerKey } })
    expect(badSig.status).toBe(403)
    expect((await json(badSig)).error.code).toBe('invalid_signature')
    const wrongMethod = await fetch(`${base()}/api/v1/studio/claim`, { headers: { 'X-API-Key': workerKey } })
    expect(wrongMethod.status).toBe(405)
    expect((await json(wrongMethod)).error.code).toBe('method_not_allowed')
    // End the job so that it is not offered to the next tests.
    await studio('fail', { job_id: id, reason: 'pipeline_error', message: 'test cleanup' })
  })

  it('fails and refunds a job whose runs keep dying, after the attempt limit', async () => {
    const before = credits()
    const id = await newJob()
    expect(credits()).toBe(before - 1)
    for (let attempt = 1; attempt <= 3; attempt++) {
      // Each claim is a run whose worker then died (BullMQ offers the job again).
      const claim = (await json(await studio('claim', { job_id: id }))).job
      expect(claim.attempt).toBe(attempt)
    }
    expect((await json(await studio('claim', { job_id: id }))).job).toBeNull()
    const st = await json(await fetch(`${base()}/api/v1/status?job_id=${id}`, { headers: { 'X-API-Key': client } }))
    expect(st.error.code).toBe('job_failed')
    expect(st.error.reason).toBe('pipeline_crashed')
    expect(credits()).toBe(before)
    expect(ledger(id)).toEqual(['charge', 'refund'])
  })

  it('stores a result once however often it is uploaded', async () => {
    const id = await newJob()
    const claim = (await json(await studio('claim', { job_id: id }))).job
    const input = await fetch(base() + claim.input_url, { headers: { 'X-API-Key': workerKey } })
    expect(input.status).toBe(200)
    expect(Buffer.from(await input.arrayBuffer()).equals(await tinyPng())).toBe(true)
    expect((await studio('progress', { job_id: id, stage: 'pending_compose' })).status).toBe(200)
    const first = await sharp({ create: { width: 8, height: 8, channels: 4, background: '#ff000080' } }).png().toBuffer()
    const second = await sharp({ create: { width: 8, height: 8, channels: 4, background: '#00ff0080' } }).png().toBuffer()
    const a = await studio(`result/${id}`, { outputs: [{ variation: 'clipping', ext: 'png', data: first.toString('base64') }], warnings: {}, ignored: [], busy_ms: 1000 })
    expect(await json(a)).toEqual({ stored: true })
    // A slow worker and its replacement both upload: the second is acknowledged, not stored.
    const b = await studio(`result/${id}`, { outputs: [{ variation: 'clipping', ext: 'png', data: second.toString('base64') }], warnings: {}, ignored: [], busy_ms: 1000 })
    expect(await json(b)).toEqual({ stored: false })
    const st = await json(await fetch(`${base()}/api/v1/status?job_id=${id}`, { headers: { 'X-API-Key': client } }))
    expect(st.status).toBe('done')
    expect(Buffer.from(await (await fetch(st.final_url)).arrayBuffer()).equals(first)).toBe(true)
    expect(readFileSync(join(data, 'results', id, 'clipping.png')).equals(first)).toBe(true)
    expect(ledger(id)).toEqual(['charge'])
    // The worker is listed for the owner, with its job.
    const list = await json(await fetch(`${base()}/api/v1/studio/workers`, { headers: { 'X-API-Key': owner } }))
    expect(list.workers.find((w: { name: string }) => w.name === 'hand')).toMatchObject({ device: 'cpu', jobs_done: 1, jobs_per_hour: 3600 })
  })

  it('answers uploads 503 while Redis is down, and takes them again when it is back', async () => {
    await redis.stop()
    await waitFor(async () => (await upload()).status === 503, 'the coordinator to notice Redis is down')
    const res = await upload()
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('5')
    expect((await json(res)).error.code).toBe('unavailable')
    await redis.start()
    await waitFor(async () => {
      const r = await upload()
      return r.status === 202
    }, 'uploads to be accepted again')
  })
})
