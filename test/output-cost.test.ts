/**
 * Cost bounded by what was paid, at the upload (docs/api.md §3, §15): outputs over the limits
 * are refused before a job exists, large outputs are charged in proportion, and one key cannot
 * take every place in the queue. A real engine and listener on 127.0.0.1 with jobs kept queued
 * (nothing here needs the model); the jobs' own runs are test/output-cost-jobs.test.ts.
 */
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { multipart, startTestServer, type TestServer } from './helpers/engine'
import { json } from './helpers/http'

let server: TestServer
/** The request of the hostile review: 400×300, about 360 KB (noise does not compress). */
let small: Buffer

beforeAll(async () => {
  server = await startTestServer({ run: false })
  const noise = Buffer.alloc(400 * 300 * 3)
  let x = 2463534242 // xorshift32: noise that no PNG filter can predict
  for (let i = 0; i < noise.length; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    noise[i] = x & 255
  }
  small = await sharp(noise, { raw: { width: 400, height: 300, channels: 3 } })
    .png()
    .toBuffer()
})
afterAll(() => server.close())

async function upload(target: TestServer, apiKey: string, fields: Record<string, string>, file: Buffer = small) {
  const res = await fetch(target.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': apiKey },
    body: multipart(fields, { bytes: file, type: 'image/png', name: 'small.png' })
  })
  return { status: res.status, body: await json(res), retryAfter: res.headers.get('retry-after') }
}

const ALL = 'clipping,background,compose,shadowTop,mask'

describe('outputs over the limits are refused at the upload', () => {
  it('360 KB 400×300 with size=10000x10000 and all five variations, psd: 422 validation_failed, nothing charged', async () => {
    expect(small.length).toBeGreaterThan(300_000)
    const { info, key } = server.engine.createKey({ credits: 50 })
    const queued = server.engine.queuedCount()
    const { status, body } = await upload(server, key, {
      mode: 'params',
      params: `size=10000x10000;variations=${ALL}`,
      output_format: 'psd'
    })
    expect(status).toBe(422)
    expect(body.error.code).toBe('validation_failed')
    expect(body.error.details).toEqual([
      {
        field: 'params.variations',
        issue:
          '5 variations of 10000×10000 would be 500 MP of output, over the 250 MP a job may make; ask for fewer variations or a smaller size'
      }
    ])
    expect(server.engine.key(info.id)!.credits).toBe(50)
    expect(server.engine.queuedCount()).toBe(queued)
  })

  it('the same from a file_url (the canvas does not depend on the input): 422 before anything is fetched', async () => {
    const res = await fetch(server.url('/api/v1/upload'), {
      method: 'POST',
      headers: { 'X-API-Key': server.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ file_url: 'https://example.com/a.png', mode: 'params', params: `size=10000x10000;variations=${ALL}` })
    })
    expect(res.status).toBe(422)
    expect((await json(res)).error.details[0].field).toBe('params.variations')
  })

  it('one canvas over 100 MP, known once the file is probed (9000×9000 with a 1000 px margin): 422 params.size', async () => {
    const big = await sharp({ create: { width: 9000, height: 9000, channels: 3, background: '#4a8' } })
      .png()
      .toBuffer()
    const { status, body } = await upload(
      server,
      server.key,
      { mode: 'params', params: 'size=original;margin=1000px;variations=clipping' },
      big
    )
    expect(status).toBe(422)
    expect(body.error.code).toBe('validation_failed')
    expect(body.error.details).toEqual([
      {
        field: 'params.size',
        issue: 'the output canvas would be 11000×11000, over the limit (30,000 px a side, 100 MP a variation); use a smaller size or margin'
      }
    ])
  })
})

describe('large outputs cost credits in proportion', () => {
  const TWO = { mode: 'params', params: 'size=10000x10000;variations=clipping,mask', output_format: 'psd' }

  it('200 MP of output costs 2 credits: a key with 1 gets 402 insufficient_credits and keeps its credit', async () => {
    const { info, key } = server.engine.createKey({ credits: 1 })
    const { status, body } = await upload(server, key, TWO)
    expect(status).toBe(402)
    expect(body.error.code).toBe('insufficient_credits')
    expect(body.error.message).toBe('This API key has 1 credit left; this job costs 2 credits (one per started 100 MP of output).')
    expect(server.engine.key(info.id)!.credits).toBe(1)
  })

  it('charged at acceptance, all given back when the job ends unsuccessfully; the balance never goes below 0', async () => {
    const { info, key } = server.engine.createKey({ credits: 3 })
    const first = await upload(server, key, TWO)
    expect(first.status).toBe(202)
    expect(server.engine.key(info.id)!.credits).toBe(1)
    expect(server.engine.creditsHeldFor(first.body.job_id)).toBe(2)
    expect((await upload(server, key, TWO)).status).toBe(402)
    expect(server.engine.key(info.id)!.credits).toBe(1)
    expect(server.engine.cancel(first.body.job_id)).toBe(true)
    expect(server.engine.key(info.id)!.credits).toBe(3)
    // An ordinary job still costs 1.
    expect((await upload(server, key, { mode: 'background' })).status).toBe(202)
    expect(server.engine.key(info.id)!.credits).toBe(2)
  })
})

describe('one key cannot hold every place in the queue', () => {
  it('past its share (a quarter of the queue) a key gets 429 rate_limited with Retry-After; other keys still get in, until the queue is full (503); owner keys have no share', async () => {
    const fair = await startTestServer({ run: false, maxQueuedJobs: 8 })
    try {
      const keys = Array.from({ length: 5 }, () => fair.engine.createKey({ credits: null }).key)
      // The jobs taken, oldest first: nothing runs them, so the oldest still queued is the first here.
      const queued: string[] = []
      const byUrl = async (key: string) => {
        const res = await fetch(fair.url('/api/v1/upload'), {
          method: 'POST',
          headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
          body: JSON.stringify({ file_url: 'https://example.com/a.png' })
        })
        const body = await json(res)
        if (res.status === 202) queued.push(body.job_id)
        return { status: res.status, body, retryAfter: res.headers.get('retry-after') }
      }
      expect((await byUrl(keys[0]!)).status).toBe(202)
      expect((await byUrl(keys[0]!)).status).toBe(202)
      const third = await byUrl(keys[0]!)
      expect(third.status).toBe(429)
      expect(third.body.error.code).toBe('rate_limited')
      expect(third.body.error.message).toBe('This API key already has 2 jobs waiting, the most one key may have; wait for some to start.')
      expect(third.retryAfter).toBe('30')
      // The file of a key past its share is never read: refused before the probe.
      const withFile = await upload(fair, keys[0]!, { mode: 'clipping' })
      expect([withFile.status, withFile.body.error.code]).toEqual([429, 'rate_limited'])
      for (const key of keys.slice(1, 4)) for (let i = 0; i < 2; i++) expect((await byUrl(key)).status).toBe(202)
      const full = await byUrl(keys[4]!)
      expect([full.status, full.body.error.code, full.retryAfter]).toEqual([503, 'unavailable', '30'])
      expect(fair.engine.queuedCount()).toBe(8)
      // Once one of its jobs leaves the queue, the key has room again.
      expect(fair.engine.cancel(queued.shift()!)).toBe(true)
      expect((await byUrl(keys[0]!)).status).toBe(202)
      // The machine's owner (an owner key, as the app in a browser uses) has no share: only the queue's limit.
      expect(fair.engine.cancel(queued.shift()!)).toBe(true)
      expect(fair.engine.cancel(queued.shift()!)).toBe(true)
      expect(fair.engine.cancel(queued.shift()!)).toBe(true)
      const owner = fair.engine.createKey({ credits: null, admin: true }).key
      for (let i = 0; i < 3; i++) expect((await byUrl(owner)).status).toBe(202)
      expect((await byUrl(owner)).status).toBe(503)
    } finally {
      await fair.close()
    }
  })
})
