import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServeProcess } from './helpers/cli'
import { tempDir } from './helpers/engine'
import { tinyPng } from './helpers/fixtures'
import { json } from './helpers/http'
import { HandWorker, REDIS_SERVER, createKey, startCoordinator, startRedis, type RedisProcess, stopStudio } from './helpers/studio'

describe.skipIf(!REDIS_SERVER)('studio: hinted jobs', () => {
  const data = tempDir()
  let redis: RedisProcess
  let serve: ServeProcess
  let client: string
  let hand: HandWorker
  const base = (): string => `http://127.0.0.1:${serve.port}`

  beforeAll(async () => {
    redis = await startRedis()
    client = createKey(data, ['--credits', 'unlimited'])
    hand = new HandWorker(base, createKey(data, ['--worker', '--name', 'remote']))
    serve = await startCoordinator(data, redis.url)
  })
  afterAll(() => stopStudio({ serve, redis, data }))

  async function upload(withHint: boolean, regions?: string, side?: number): Promise<Response> {
    const form = new FormData()
    form.append('file', new Blob([new Uint8Array(await tinyPng(side ?? 16, side ?? 12))], { type: 'image/png' }), 'a.png')
    if (regions) form.append('regions', regions)
    if (withHint) {
      const hint = await sharp({ create: { width: 16, height: 12, channels: 3, background: '#ffffff' } })
        .png()
        .toBuffer()
      form.append('hint', new Blob([new Uint8Array(hint)], { type: 'image/png' }), 'hint.png')
    }
    return fetch(`${base()}/api/v1/upload`, { method: 'POST', headers: { 'X-API-Key': client }, body: form })
  }
  const jobCount = async (): Promise<number> =>
    (await json(await fetch(`${base()}/api/v1/jobs?limit=100`, { headers: { 'X-API-Key': client } }))).jobs.length

  it('refuses a hinted upload 422 naming hint (no worker here may apply it); a job without a hint is claimed', async () => {
    const before = await jobCount()
    const res = await upload(true)
    expect(res.status).toBe(422)
    const body = await json(res)
    expect(body.error.code).toBe('validation_failed')
    expect(body.error.details).toEqual([{ field: 'hint', issue: expect.stringContaining('own worker') }])
    expect(body.error.message).toContain('--no-local-worker')
    expect(await jobCount()).toBe(before)

    const plain = await upload(false)
    expect(plain.status).toBe(202)
    const id = (await json(plain)).job_id
    const claim = await hand.claimed(id)
    expect(claim.job_id).toBe(id)
  })

  it('refuses look-again boxes the same way, 422 naming regions', async () => {
    const res = await upload(false, JSON.stringify([{ x: 0, y: 0, width: 16, height: 16 }]), 32)
    expect(res.status).toBe(422)
    const body = await json(res)
    expect(body.error.code).toBe('validation_failed')
    expect(body.error.details[0].field).toBe('regions')
  })

  it("refuses remove.bg's roi 400 unsupported_option naming roi, and makes no job", async () => {
    const before = await jobCount()
    const form = new FormData()
    form.append('image_file', new Blob([new Uint8Array(await tinyPng(40, 30))], { type: 'image/png' }), 'a.png')
    form.append('roi', '0% 0% 50% 50%')
    const res = await fetch(`${base()}/v1.0/removebg`, { method: 'POST', headers: { 'X-API-Key': client }, body: form })
    expect(res.status).toBe(400)
    const body = await json(res)
    expect(body.errors).toHaveLength(1)
    expect(body.errors[0].code).toBe('unsupported_option')
    expect(body.errors[0].detail).toMatch(/^roi: .*region of interest/)
    expect(await jobCount()).toBe(before)
  })
})
