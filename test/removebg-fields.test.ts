/**
 * The remove.bg-compatible endpoint's refusals over a real listener, field by field: every one
 * answers remove.bg's error shape with the exact status and code, charges nothing and runs no
 * job. The engine takes no work (`run: false`), so no model runs here; the answers of jobs that
 * run are in removebg-jobs.test.ts.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/engine'
import { tinyPng } from './helpers/fixtures'
import { json } from './helpers/http'

let server: TestServer
let png: Buffer
let images: Server
let imageHits = 0
let imageBase: string

beforeAll(async () => {
  server = await startTestServer({ run: false, allowPrivateNetworkUrls: true })
  png = await tinyPng(16, 16)
  images = createServer((_req, res) => {
    imageHits++
    res.writeHead(200, { 'Content-Type': 'image/png' })
    res.end(png)
  })
  await new Promise<void>((r) => images.listen(0, '127.0.0.1', r))
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`
})
afterAll(async () => {
  images.close()
  await server.close()
})

function form(fields: Record<string, string>, file: Buffer | null = png): FormData {
  const f = new FormData()
  if (file) f.append('image_file', new Blob([new Uint8Array(file)], { type: 'image/png' }), 'file.png')
  for (const [k, v] of Object.entries(fields)) f.append(k, v)
  return f
}

async function post(body: FormData | string | URLSearchParams, headers: Record<string, string> = {}, key = server.key): Promise<Response> {
  return fetch(server.url('/v1.0/removebg'), { method: 'POST', headers: { 'X-Api-Key': key, ...headers }, body })
}

async function expectError(res: Response, status: number, code: string): Promise<Record<string, any>> {
  expect(res.status).toBe(status)
  const body = await json(res)
  expect(Array.isArray(body.errors)).toBe(true)
  expect(body.errors.map((e: { code: string }) => e.code)).toContain(code)
  for (const e of body.errors) expect(typeof e.title).toBe('string')
  return body
}

const jobCount = (): number => server.engine.jobCount()

describe('POST /v1.0/removebg refusals', () => {
  it.each([
    ['size', 'huge', 'invalid_size'],
    ['type', 'building', 'invalid_type'],
    ['type_level', '3', 'invalid_type_level'],
    ['format', 'gif', 'invalid_format'],
    ['roi', '0 0 100', 'invalid_roi'],
    ['roi', '50% 50% 10% 10%', 'invalid_roi'],
    ['crop', 'maybe', 'invalid_crop'],
    ['scale', '5%', 'invalid_scale'],
    ['scale', '120%', 'invalid_scale'],
    ['position', 'left', 'invalid_position'],
    ['channels', 'rgb', 'invalid_channels'],
    ['bg_color', 'not-a-colour', 'invalid_bg_color'],
    ['bg_color', '12345', 'invalid_bg_color'],
    ['shadow_type', 'soft', 'invalid_shadow_type'],
    ['add_shadow', 'perhaps', 'invalid_add_shadow'],
    ['shadow_opacity', '150', 'invalid_shadow_opacity'],
    ['semitransparency', 'sometimes', 'invalid_semitransparency'],
    ['sharpen', 'true', 'unknown_parameter']
  ])('%s=%s → 400 %s', async (field, value, code) => {
    const before = jobCount()
    await expectError(await post(form({ [field]: value })), 400, code)
    expect(jobCount()).toBe(before)
  })

  it.each([
    [{ crop: 'true', crop_margin: '10px 20px' }, 'unsupported_option'],
    [{ crop: 'true', crop_margin: '60%' }, 'invalid_crop_margin'],
    [{ crop: 'true', crop_margin: '600px' }, 'invalid_crop_margin'],
    [{ crop: 'true', crop_margin: 'wide' }, 'invalid_crop_margin'],
    [{ crop_margin: '10px' }, 'invalid_crop_margin'],
    [{ position: 'center' }, 'unsupported_option'],
    [{ scale: '80%', position: '10% 20%' }, 'unsupported_option'],
    [{ scale: '80%', position: 'original' }, 'unsupported_option'],
    [{ crop: 'true', scale: '80%' }, 'unsupported_option'],
    [{ shadow_type: 'drop', shadow_opacity: '50' }, 'unsupported_option'],
    [{ shadow_type: 'drop', add_shadow: 'false' }, 'invalid_add_shadow'],
    [{ semitransparency: 'false' }, 'unsupported_option'],
    [{ bg_color: 'fff', bg_image_url: 'http://127.0.0.1:1/bg.png' }, 'multiple_bg_sources'],
    [{ add_shadow: 'true', bg_image_url: 'http://127.0.0.1:1/bg.png' }, 'unsupported_option']
  ])('%o → 400 %s', async (fields, code) => {
    await expectError(await post(form(fields)), 400, code)
  })

  it('names every problem of one request at once', async () => {
    const body = await expectError(await post(form({ size: 'huge', format: 'gif', channels: 'rgb' })), 400, 'invalid_size')
    expect(body.errors.map((e: { code: string }) => e.code).sort()).toEqual(['invalid_channels', 'invalid_format', 'invalid_size'])
  })

  it('refuses a bg_image_file that is no image (400 invalid_bg_image) before any job exists', async () => {
    const before = jobCount()
    const f = form({})
    f.append('bg_image_file', new Blob([new Uint8Array(Buffer.from('not an image'))], { type: 'image/png' }), 'bg.png')
    await expectError(await post(f), 400, 'invalid_bg_image')
    expect(jobCount()).toBe(before)
  })

  it('refuses a region of interest outside the image (400 invalid_roi) before any job exists', async () => {
    const before = jobCount()
    await expectError(await post(form({ roi: '0px 0px 40px 40px' })), 400, 'invalid_roi')
    expect(jobCount()).toBe(before)
  })

  it('refuses no source (missing_source) and two sources (multiple_sources)', async () => {
    await expectError(await post(form({ size: 'auto' }, null)), 400, 'missing_source')
    await expectError(await post(form({ image_url: `${imageBase}/a.png` })), 400, 'multiple_sources')
    await expectError(
      await post(JSON.stringify({ image_file_b64: png.toString('base64'), image_url: `${imageBase}/a.png` }), {
        'Content-Type': 'application/json'
      }),
      400,
      'multiple_sources'
    )
  })

  it('refuses base64 that is not base64 (invalid_image_file_b64) and bytes that are no image (invalid_parameters)', async () => {
    await expectError(
      await post(JSON.stringify({ image_file_b64: '***' }), { 'Content-Type': 'application/json' }),
      400,
      'invalid_image_file_b64'
    )
    await expectError(
      await post(JSON.stringify({ image_file_b64: Buffer.from('not an image').toString('base64') }), {
        'Content-Type': 'application/json'
      }),
      400,
      'invalid_parameters'
    )
  })

  it('refuses an image_url the address policy blocks (url_blocked) or that fails (failed_to_download)', async () => {
    const strict = await startTestServer({ run: false })
    try {
      const res = await fetch(strict.url('/v1.0/removebg'), {
        method: 'POST',
        headers: { 'X-Api-Key': strict.key },
        body: new URLSearchParams({ image_url: `${imageBase}/a.png` })
      })
      await expectError(res, 400, 'url_blocked')
    } finally {
      await strict.close()
    }
    await expectError(await post(new URLSearchParams({ image_url: 'http://127.0.0.1:1/nothing.png' })), 400, 'failed_to_download')
    await expectError(await post(new URLSearchParams({ image_url: 'ftp://example.com/a.png' })), 400, 'url_blocked')
  })

  it('refuses a body that cannot be parsed (400 invalid_request) and an unknown file part', async () => {
    await expectError(await post('{"size":', { 'Content-Type': 'application/json' }), 400, 'invalid_request')
    await expectError(await post('size=auto', { 'Content-Type': 'text/plain' }), 400, 'invalid_request')
    const f = new FormData()
    f.append('photo', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'p.png')
    await expectError(await post(f), 400, 'invalid_request')
  })

  it('refuses a file over the upload limit with 400 file_too_large', async () => {
    const small = await startTestServer({ run: false, maxUploadBytes: 1000 })
    try {
      const res = await fetch(small.url('/v1.0/removebg'), {
        method: 'POST',
        headers: { 'X-Api-Key': small.key },
        body: form({}, Buffer.alloc(5000, 1))
      })
      await expectError(res, 400, 'file_too_large')
    } finally {
      await small.close()
    }
  })

  it('refuses an image over the pixel limit with 400 resolution_too_high', async () => {
    const small = await startTestServer({ run: false, maxPixels: 100 })
    try {
      const res = await fetch(small.url('/v1.0/removebg'), {
        method: 'POST',
        headers: { 'X-Api-Key': small.key },
        body: form({}, await tinyPng(20, 20))
      })
      await expectError(res, 400, 'resolution_too_high')
    } finally {
      await small.close()
    }
  })
})

describe('keys, credits and limits', () => {
  it('answers 403 auth_failed without a key or with a bad one', async () => {
    await expectError(await fetch(server.url('/v1.0/removebg'), { method: 'POST', body: form({}) }), 403, 'auth_failed')
    await expectError(await post(form({}), {}, 'cdk_not-a-key'), 403, 'auth_failed')
    await expectError(await fetch(server.url('/v1.0/account')), 403, 'auth_failed')
  })

  it('answers 402 to a key with no credits: no job, nothing fetched, nothing charged', async () => {
    const { key, info } = server.engine.createKey({ credits: 0 })
    const [before, hits] = [jobCount(), imageHits]
    await expectError(
      await post(new URLSearchParams({ image_url: `${imageBase}/a.png`, size: 'auto' }), {}, key),
      402,
      'insufficient_credits'
    )
    await expectError(await post(form({}), {}, key), 402, 'insufficient_credits')
    expect(jobCount()).toBe(before)
    expect(imageHits).toBe(hits)
    expect(server.engine.key(info.id)!.credits).toBe(0)
  })

  it("answers 429 with Retry-After when the key's share of the queue is full, as /api/v1 does", async () => {
    const limited = await startTestServer({ run: false, maxQueuedJobs: 4, maxQueuedJobsPerKey: 1 })
    try {
      const { key } = limited.engine.createKey({ credits: 10 })
      const first = await fetch(limited.url('/api/v1/upload'), {
        method: 'POST',
        headers: { 'X-API-Key': key },
        body: (() => {
          const f = new FormData()
          f.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'a.png')
          return f
        })()
      })
      expect(first.status).toBe(202)
      const res = await fetch(limited.url('/v1.0/removebg'), { method: 'POST', headers: { 'X-Api-Key': key }, body: form({}) })
      await expectError(res, 429, 'rate_limit_exceeded')
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(res.headers.get('x-ratelimit-limit')).toBe('1')
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0')
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0)
    } finally {
      await limited.close()
    }
  })

  it('answers 405 to other methods', async () => {
    await expectError(await fetch(server.url('/v1.0/removebg'), { headers: { 'X-Api-Key': server.key } }), 405, 'method_not_allowed')
    await expectError(
      await fetch(server.url('/v1.0/account'), { method: 'POST', headers: { 'X-Api-Key': server.key } }),
      405,
      'method_not_allowed'
    )
  })
})

describe('GET /v1.0/account', () => {
  it("gives the key's credits in remove.bg's shape", async () => {
    const { key } = server.engine.createKey({ credits: 42 })
    const res = await fetch(server.url('/v1.0/account'), { headers: { 'X-Api-Key': key } })
    expect(res.status).toBe(200)
    expect(await json(res)).toEqual({
      data: { attributes: { credits: { total: 42, subscription: 0, payg: 42, enterprise: 0 }, api: { free_calls: 0, sizes: 'all' } } }
    })
    const unlimited = await json(await fetch(server.url('/v1.0/account'), { headers: { 'X-Api-Key': server.key } }))
    expect(unlimited.data.attributes.credits.total).toBeNull()
  })
})
