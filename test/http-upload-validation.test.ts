/**
 * Black-box tests of POST /api/v1/upload on a real listener: every validation rule of the
 * seed and docs/api.md, with the exact status and error.code, and no job created on a refusal.
 * Jobs are not run here (no model): the engine is not started.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { multipart, startTestServer, type TestServer } from './helpers/engine'
import { tinyPng } from './helpers/fixtures'
import { json } from './helpers/http'

let server: TestServer
let png: Buffer

beforeAll(async () => {
  server = await startTestServer({ run: false })
  png = await tinyPng()
})
afterAll(() => server.close())

function jobCount(): number {
  return server.engine.queuedCount()
}

async function postJson(body: unknown, raw?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': server.key, 'Content-Type': 'application/json' },
    body: raw ?? JSON.stringify(body)
  })
  return { status: res.status, body: await json(res) }
}

async function postForm(form: FormData): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url('/api/v1/upload'), { method: 'POST', headers: { 'X-API-Key': server.key }, body: form })
  return { status: res.status, body: await json(res) }
}

/** Sends a refused request and checks status, code and that no job appeared. */
async function expectRefused(send: () => Promise<{ status: number; body: any }>, status: number, code: string, field?: string) {
  const before = jobCount()
  const res = await send()
  expect(res.status).toBe(status)
  expect(res.body.error.code).toBe(code)
  expect(typeof res.body.error.message).toBe('string')
  if (field) expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field)
  expect(jobCount()).toBe(before)
  return res.body
}

describe('accepted uploads', () => {
  it('accepts a JSON upload with file_url: 202 and the tracking payload', async () => {
    const res = await postJson({ file_url: 'https://example.com/cat.jpg' })
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ job_id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'queued', mode: 'clipping' })
  })

  it('accepts a multipart upload with a file and text parts', async () => {
    const res = await postForm(
      multipart({ mode: 'clipping', output_format: 'webp', delivery_mode: 'final_url' }, { bytes: png, type: 'image/png' })
    )
    expect(res.status).toBe(202)
    expect(res.body.mode).toBe('clipping')
    expect(server.engine.job(res.body.job_id)).toMatchObject({ outputFormat: 'webp', deliveryMode: 'final_url', sourceKind: 'file' })
  })

  it('accepts file_url as a multipart text part', async () => {
    const res = await postForm(multipart({ file_url: 'http://example.com/a.png', mode: 'background' }))
    expect(res.status).toBe(202)
    expect(res.body.mode).toBe('background')
  })

  it('accepts every MIME type of the seed list, and application/octet-stream (what curl sends for a file it does not know), when the bytes are an image', async () => {
    for (const type of [
      'image/png',
      'image/x-tiff',
      'application/tiff',
      'image/vnd.adobe.photoshop',
      'image/svg+xml',
      'application/octet-stream'
    ]) {
      const res = await postForm(multipart({}, { bytes: png, type }))
      expect(res.status, type).toBe(202)
    }
  })
})

describe('400 malformed_request', () => {
  it('refuses JSON that does not parse', () => expectRefused(() => postJson(null, '{"file_url": '), 400, 'malformed_request'))
  it('refuses a JSON body that is not an object', () =>
    expectRefused(() => postJson(['https://example.com/a.png']), 400, 'malformed_request'))
  it('refuses a field of the wrong JSON type', () =>
    expectRefused(() => postJson({ file_url: 'https://example.com/a.png', mode: 5 }), 400, 'malformed_request', 'mode'))
  it('refuses params of the wrong JSON type', () =>
    expectRefused(
      () => postJson({ file_url: 'https://example.com/a.png', mode: 'params', params: [1] }),
      400,
      'malformed_request',
      'params'
    ))
  it('refuses a file sent inside a JSON body', () => expectRefused(() => postJson({ file: 'aGVsbG8=' }), 400, 'malformed_request', 'file'))
  it('refuses an unsupported content type', () =>
    expectRefused(
      async () => {
        const res = await fetch(server.url('/api/v1/upload'), {
          method: 'POST',
          headers: { 'X-API-Key': server.key, 'Content-Type': 'text/plain' },
          body: 'file_url=x'
        })
        return { status: res.status, body: await json(res) }
      },
      400,
      'malformed_request'
    ))
  it('refuses a broken multipart body', () =>
    expectRefused(
      async () => {
        const res = await fetch(server.url('/api/v1/upload'), {
          method: 'POST',
          headers: { 'X-API-Key': server.key, 'Content-Type': 'multipart/form-data; boundary=abc' },
          body: '--abc\r\nContent-Disposition: form-data; name="mode"\r\n\r\nclipping\r\n--ab'
        })
        return { status: res.status, body: await json(res) }
      },
      400,
      'malformed_request'
    ))
  it('refuses a file in a part not named "file"', () =>
    expectRefused(() => postForm(multipart({}, { bytes: png, type: 'image/png', part: 'image' })), 400, 'malformed_request'))
})

describe('400 missing_input', () => {
  it('refuses a JSON body with neither file nor file_url', () =>
    expectRefused(() => postJson({ mode: 'clipping' }), 400, 'missing_input', 'file'))
  it('refuses a multipart body with neither file nor file_url', () =>
    expectRefused(() => postForm(multipart({ mode: 'clipping' })), 400, 'missing_input'))
})

describe('422 validation_failed', () => {
  it('refuses both file and file_url', () =>
    expectRefused(
      () => postForm(multipart({ file_url: 'https://example.com/a.png' }, { bytes: png, type: 'image/png' })),
      422,
      'validation_failed',
      'file_url'
    ))
  it('refuses mode=params without params', () =>
    expectRefused(() => postJson({ file_url: 'https://example.com/a.png', mode: 'params' }), 422, 'validation_failed', 'params'))
  it('refuses mode=params with an empty params string', () =>
    expectRefused(
      () => postJson({ file_url: 'https://example.com/a.png', mode: 'params', params: '' }),
      422,
      'validation_failed',
      'params'
    ))
  it('refuses a file_url with another scheme', () =>
    expectRefused(() => postJson({ file_url: 'ftp://example.com/a.png' }), 422, 'validation_failed', 'file_url'))
  it('refuses a relative file_url', () =>
    expectRefused(() => postJson({ file_url: '/images/a.png' }), 422, 'validation_failed', 'file_url'))
  it('refuses a mode outside its enum', () =>
    expectRefused(() => postJson({ file_url: 'https://example.com/a.png', mode: 'magic' }), 422, 'validation_failed', 'mode'))
  it('refuses an output_format outside its enum', () =>
    expectRefused(
      () => postJson({ file_url: 'https://example.com/a.png', output_format: 'bmp' }),
      422,
      'validation_failed',
      'output_format'
    ))
  it('refuses a delivery_mode outside its enum', () =>
    expectRefused(
      () => postJson({ file_url: 'https://example.com/a.png', delivery_mode: 'email' }),
      422,
      'validation_failed',
      'delivery_mode'
    ))
  it('names every bad field at once', async () => {
    const body = await expectRefused(() => postJson({ file_url: 'gopher://x', mode: 'x', output_format: 'y' }), 422, 'validation_failed')
    expect(body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['file_url', 'mode', 'output_format'])
  })
  it('refuses a params string over 2,048 characters', () =>
    expectRefused(
      () => postJson({ file_url: 'https://example.com/a.png', mode: 'params', params: 'x'.repeat(2049) }),
      422,
      'validation_failed',
      'params'
    ))
  it('refuses an unknown field', () =>
    expectRefused(() => postJson({ file_url: 'https://example.com/a.png', outputformat: 'png' }), 422, 'validation_failed', 'outputformat'))
  it('suggests the nearest preset for a misspelt name', async () => {
    const body = await expectRefused(
      () => postJson({ file_url: 'https://example.com/a.png', mode: 'params', params: 'ecomerce-white' }),
      422,
      'validation_failed',
      'params.preset'
    )
    expect(body.error.details).toEqual([
      { field: 'params.preset', issue: 'no preset named "ecomerce-white"; did you mean "ecommerce-white"?' }
    ])
  })
  it('names every problem of the request at once: other fields, the grammar of the set, an unknown preset, a margin too wide for the size', async () => {
    const body = await expectRefused(
      () =>
        postJson({
          file_url: 'https://example.com/a.png',
          mode: 'params',
          output_format: 'gif',
          params: 'no-such-preset;shadow=sideways;size=100;margin=60px'
        }),
      422,
      'validation_failed'
    )
    expect(body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'output_format',
      'params.margin',
      'params.preset',
      'params.shadow'
    ])
  })
  it('refuses bytes that are not an image when declared application/octet-stream (the bytes decide)', () =>
    expectRefused(
      () => postForm(multipart({}, { bytes: Buffer.from('hello, this is not a picture'), type: 'application/octet-stream' })),
      422,
      'validation_failed',
      'file'
    ))
  it('refuses a declared MIME type outside the list', () =>
    expectRefused(() => postForm(multipart({}, { bytes: png, type: 'text/plain' })), 422, 'validation_failed', 'file'))
  it('refuses bytes that are not an image', () =>
    expectRefused(
      () => postForm(multipart({}, { bytes: Buffer.from('hello, this is not a picture'), type: 'image/png' })),
      422,
      'validation_failed',
      'file'
    ))
  it("refuses an image whose header is cut short, in plain words with the decoder's text under details", async () => {
    const body = await expectRefused(
      () => postForm(multipart({}, { bytes: png.subarray(0, 12), type: 'image/png' })),
      422,
      'validation_failed',
      'file'
    )
    expect(body.error.message).toMatch(/^This (PNG|image|file) is damaged/)
    expect(body.error.message).not.toMatch(/vips|libpng|buffer/i)
    expect(body.error.details).toEqual([{ field: 'file', issue: expect.any(String) }])
    expect(body.error.details[0].issue).not.toBe(body.error.message)
  })
})

describe('limits', () => {
  it('answers 413 payload_too_large for an upload over the size limit, and 422 image_too_large over the pixel limit', async () => {
    const small = await startTestServer({ run: false, maxUploadBytes: 1000, maxPixels: 10_000 })
    try {
      const big = Buffer.concat([png, Buffer.alloc(5000)])
      const res = await fetch(small.url('/api/v1/upload'), {
        method: 'POST',
        headers: { 'X-API-Key': small.key },
        body: multipart({}, { bytes: big, type: 'image/png' })
      })
      expect(res.status).toBe(413)
      expect((await json(res)).error.code).toBe('payload_too_large')

      const wide = await tinyPng(200, 100) // 20,000 pixels > 10,000
      const res2 = await fetch(small.url('/api/v1/upload'), {
        method: 'POST',
        headers: { 'X-API-Key': small.key },
        body: multipart({}, { bytes: wide, type: 'image/png' })
      })
      expect(res2.status).toBe(422)
      expect((await json(res2)).error.code).toBe('image_too_large')
      expect(small.engine.queuedCount()).toBe(0)
    } finally {
      await small.close()
    }
  })

  it('answers 503 unavailable with Retry-After when the queue is full', async () => {
    const full = await startTestServer({ run: false, maxQueuedJobs: 2, maxQueuedJobsPerKey: 2 })
    try {
      const send = () =>
        fetch(full.url('/api/v1/upload'), {
          method: 'POST',
          headers: { 'X-API-Key': full.key, 'Content-Type': 'application/json' },
          body: JSON.stringify({ file_url: 'https://example.com/a.png' })
        })
      expect((await send()).status).toBe(202)
      expect((await send()).status).toBe(202)
      const res = await send()
      expect(res.status).toBe(503)
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/)
      expect((await json(res)).error.code).toBe('unavailable')
      expect(full.engine.queuedCount()).toBe(2)
    } finally {
      await full.close()
    }
  })
})
