/**
 * Studio mode's coordinator, without the model: `clipdesk serve --queue` on a real Redis,
 * driven through `/api/v1/studio/*` by hand (the test plays the worker). Key kinds, every
 * reject path, the attempt limit (repeated worker deaths → failed and refunded), a result
 * stored once, and uploads answering 503 while Redis is down.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type Db } from '../src/main/engine/store/db'
import type { ServeProcess } from './helpers/cli'
import { multipart, tempDir } from './helpers/engine'
import { tinyPng } from './helpers/fixtures'
import { json } from './helpers/http'
import {
  HandWorker,
  REDIS_SERVER,
  createKey,
  startCoordinator,
  startRedis,
  waitFor,
  type HandClaim,
  type RedisProcess,
  stopStudio
} from './helpers/studio'

describe.skipIf(!REDIS_SERVER)('studio coordinator protocol', () => {
  const data = tempDir()
  let redis: RedisProcess
  let serve: ServeProcess
  let owner: string
  let client: string
  let workerKey: string
  let db: Db
  let hand: HandWorker
  const base = (): string => `http://127.0.0.1:${serve.port}`

  beforeAll(async () => {
    redis = await startRedis()
    owner = createKey(data, ['--admin', '--credits', 'unlimited'])
    client = createKey(data, ['--credits', '10'])
    workerKey = createKey(data, ['--worker', '--name', 'studio worker'])
    serve = await startCoordinator(data, redis.url)
    db = openDatabase(join(data, 'clipdesk.db'))
    hand = new HandWorker(base, workerKey)
  })
  afterAll(() => stopStudio({ db, serve, redis, data }))

  const upload = async (key = client): Promise<Response> =>
    fetch(`${base()}/api/v1/upload`, {
      method: 'POST',
      headers: { 'X-API-Key': key },
      body: multipart({}, { bytes: await tinyPng(), type: 'image/png' })
    })
  /** Claims once the job's lease (3 s here) has lapsed: the way a job comes back after its worker died. */
  const claimWhenFree = async (id: string): Promise<HandClaim | null> => {
    let answer: { job: HandClaim | null } | null = null
    await waitFor(
      'the lease to lapse',
      async () => {
        const res = await hand.claim(id)
        if (res.status === 409) return (await json(res)).error.code !== 'job_held'
        answer = await json(res)
        return true
      },
      30_000
    )
    return answer!.job
  }
  const credits = (): number =>
    Number((db.prepare("SELECT credits FROM api_keys WHERE kind = 'client' AND credits IS NOT NULL").get() as { credits: number }).credits)
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
    const claimByClient = await new HandWorker(base, client).claim('00000000-0000-4000-8000-000000000000')
    expect(claimByClient.status).toBe(403)
    expect((await json(claimByClient)).error.code).toBe('forbidden')
    const noKey = await fetch(`${base()}/api/v1/studio/claim`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}'
    })
    expect(noKey.status).toBe(401)
    expect((await json(noKey)).error.code).toBe('unauthorized')
    const listByClient = await fetch(`${base()}/api/v1/studio/workers`, { headers: { 'X-API-Key': client } })
    expect(listByClient.status).toBe(403)
    expect((await json(listByClient)).error.code).toBe('forbidden')
  })

  it('refuses malformed worker calls with exact codes', async () => {
    const badId = await hand.claim('../x')
    expect(badId.status).toBe(422)
    expect((await json(badId)).error.code).toBe('validation_failed')
    const notJson = await fetch(`${base()}/api/v1/studio/claim`, {
      method: 'POST',
      headers: { ...hand.headers(), 'Content-Type': 'text/plain' },
      body: 'x'
    })
    expect(notJson.status).toBe(400)
    expect((await json(notJson)).error.code).toBe('malformed_request')
    // A worker of the first protocol (no version header) is told so, clearly, at its first call.
    const { 'X-Clipdesk-Studio': _version, ...unversioned } = hand.headers()
    const old = await fetch(`${base()}/api/v1/studio/hello`, { method: 'POST', headers: unversioned, body: '{}' })
    expect(old.status).toBe(400)
    const oldBody = await json(old)
    expect(oldBody.error.code).toBe('protocol_mismatch')
    expect(oldBody.error.message).toContain('run the same Clipdesk version on both')
    const id = await newJob()
    const badStage = await hand.progress(id, 'done')
    expect(badStage.status).toBe(422)
    expect((await json(badStage)).error.code).toBe('validation_failed')
    const claim = await hand.claimed(id)
    const badVariation = await hand.result(id, claim.token, {
      meta: { device: 'cpu', uncertainty: 0.1 },
      files: [{ name: '../../x.png', bytes: await tinyPng() }]
    })
    expect(badVariation.status).toBe(422)
    expect((await json(badVariation)).error.code).toBe('validation_failed')
    const noToken = await hand.input(id)
    expect(noToken.status).toBe(403)
    expect((await json(noToken)).error.code).toBe('claim_invalid')
    const wrongMethod = await fetch(`${base()}/api/v1/studio/claim`, { headers: hand.headers() })
    expect(wrongMethod.status).toBe(405)
    expect((await json(wrongMethod)).error.code).toBe('method_not_allowed')
    // End the job so that it is not offered to the next tests.
    expect(await json(await hand.fail(id, 'pipeline_error', 'test cleanup', claim.token))).toEqual({ failed: true })
  })

  it('leaves a job that may get a second look to workers that can give one', async () => {
    const id = await newJob()
    const without = await hand.claim(id, undefined, [])
    expect(without.status).toBe(200)
    expect(await json(without)).toEqual({ job: null, wait_ms: expect.any(Number) })
    const badFeatures = await hand.post('claim', { job_id: id, features: 'second-look' })
    expect(badFeatures.status).toBe(422)
    expect((await json(badFeatures)).error.code).toBe('validation_failed')
    const claim = await hand.claimed(id)
    expect(claim.job_id).toBe(id)
    expect(await json(await hand.fail(id, 'pipeline_error', 'test cleanup', claim.token))).toEqual({ failed: true })
  })

  it('fails and refunds a job whose runs keep dying, after the attempt limit', async () => {
    const before = credits()
    const id = await newJob()
    expect(credits()).toBe(before - 1)
    for (let attempt = 1; attempt <= 3; attempt++) {
      // Each claim is a run whose worker then died: its lease lapses and BullMQ offers the job again.
      const claim = await claimWhenFree(id)
      expect(claim?.attempt).toBe(attempt)
    }
    expect(await claimWhenFree(id)).toBeNull()
    const st = await json(await fetch(`${base()}/api/v1/status?job_id=${id}`, { headers: { 'X-API-Key': client } }))
    expect(st.error.code).toBe('job_failed')
    expect(st.error.reason).toBe('pipeline_crashed')
    expect(credits()).toBe(before)
    expect(ledger(id)).toEqual(['charge', 'refund'])
  })

  it('stores a result once however often it is uploaded', async () => {
    const id = await newJob()
    const started = Date.now()
    const claim = await hand.claimed(id)
    expect(claim).toMatchObject({ job_id: id, attempt: 1, format: 'png', model: 'medium', input_url: `/api/v1/studio/input/${id}` })
    const input = await hand.input(id, claim.token)
    expect(input.status).toBe(200)
    const bytes = Buffer.from(await input.arrayBuffer())
    expect(bytes.equals(await tinyPng())).toBe(true)
    expect(claim.input).toEqual({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') })
    expect((await hand.progress(id, 'pending_compose', claim.token)).status).toBe(200)
    const first = await sharp({ create: { width: 8, height: 8, channels: 4, background: '#ff000080' } })
      .png()
      .toBuffer()
    const second = await sharp({ create: { width: 8, height: 8, channels: 4, background: '#00ff0080' } })
      .png()
      .toBuffer()
    // A made-up busy time in the meta is not read: the coordinator measures from claim to result.
    const a = await hand.result(id, claim.token, {
      meta: { warnings: {}, ignored: [], device: 'cpu', busy_ms: 1, uncertainty: 0.1 },
      files: [{ name: 'clipping.png', bytes: first }]
    })
    expect(await json(a)).toEqual({ stored: true })
    const held = Date.now() - started
    // The same claim again (a retry, or a slow worker): the result ended the claim.
    const b = await hand.result(id, claim.token, {
      meta: { device: 'cpu', uncertainty: 0.1 },
      files: [{ name: 'clipping.png', bytes: second }]
    })
    expect(b.status).toBe(409)
    expect((await json(b)).error.code).toBe('claim_ended')
    const st = await json(await fetch(`${base()}/api/v1/status?job_id=${id}`, { headers: { 'X-API-Key': client } }))
    expect(st.status).toBe('done')
    expect(Buffer.from(await (await fetch(st.final_url)).arrayBuffer()).equals(first)).toBe(true)
    expect(readFileSync(join(data, 'results', id, 'clipping.png')).equals(first)).toBe(true)
    expect(ledger(id)).toEqual(['charge'])
    // The worker is listed for the owner, with its job.
    const list = await json(await fetch(`${base()}/api/v1/studio/workers`, { headers: { 'X-API-Key': owner } }))
    const listed = list.workers.find((w: { name: string }) => w.name === 'hand')
    expect(listed).toMatchObject({ device: 'cpu', jobs_done: 1 })
    expect(listed.busy_ms).toBeGreaterThan(1)
    expect(listed.busy_ms).toBeLessThanOrEqual(held)
  })

  it('answers uploads 503 while Redis is down, and takes them again when it is back', async () => {
    await redis.stop()
    await waitFor('the coordinator to notice Redis is down', async () => (await upload()).status === 503, 170_000)
    const res = await upload()
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('5')
    expect((await json(res)).error.code).toBe('unavailable')
    await redis.start()
    await waitFor(
      'uploads to be accepted again',
      async () => {
        const r = await upload()
        return r.status === 202
      },
      170_000
    )
  })
})
