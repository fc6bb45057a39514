/**
 * Real clipping jobs through the HTTP API with the real model: poll to done, fetch each
 * output format through its signed address and decode it. Also file_url from a loopback
 * image server, with the private-URL setting on and off.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { multipart, pollUntilSettled, startTestServer, type TestServer } from './helpers/engine'
import { SCENE, sceneMaskScores, scenePng } from './helpers/fixtures'
import { json } from './helpers/http'

let server: TestServer
let png: Buffer

beforeAll(async () => {
  server = await startTestServer({ allowPrivateNetworkUrls: true })
  png = await scenePng()
})
afterAll(() => server.close())

async function submit(fields: Record<string, string>, target: TestServer = server): Promise<string> {
  const res = await fetch(target.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': target.key },
    body: multipart(fields, { bytes: png, type: 'image/png', name: 'ball.png' })
  })
  expect(res.status).toBe(202)
  return (await json(res)).job_id
}

const MAGIC: Record<string, (b: Buffer) => boolean> = {
  png: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  webp: (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP',
  tiff: (b) => b.toString('latin1', 0, 4) === 'II*\0' || b.toString('latin1', 0, 4) === 'MM\0*',
  jpg: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  jpeg: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff
}

describe('clipping jobs', () => {
  // One job per format; the model runs once per job (~3 s each on 2 cores).
  const formats = ['png', 'webp', 'tiff', 'jpg', 'jpeg'] as const

  it.each(formats)('reaches done and delivers a decodable %s cutout', async (format) => {
    const jobId = await submit({ output_format: format })
    const { status, body, seen } = await pollUntilSettled(server, jobId)
    expect(status).toBe(200)
    expect(body).toMatchObject({ job_id: jobId, status: 'done', state: 'done', mode: 'clipping', progress: 100 })
    // Progress never goes down; statuses only move forward.
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThanOrEqual(seen[i - 1]!.progress)

    expect(body.final_urls).toEqual({ clipping: body.final_url })
    expect(body.final_url).toMatch(new RegExp(`/api/v1/results/${jobId}/clipping\\.${format}\\?expires=\\d+&sig=`))
    const res = await fetch(body.final_url) // no API key: the address is signed
    expect(res.status).toBe(200)
    const bytes = Buffer.from(await res.arrayBuffer())
    expect(MAGIC[format]!(bytes)).toBe(true)

    const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true })
    expect([info.width, info.height]).toEqual([SCENE.width, SCENE.height])
    if (format === 'jpg' || format === 'jpeg') {
      expect(info.channels).toBe(3)
      expect(body.warnings.clipping.join(' ')).toMatch(/white/)
      // The background became white; the ball stayed red.
      const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)]
      expect(at(5, 5).every((v) => v > 240)).toBe(true)
      expect(at(SCENE.cx, SCENE.cy)[0]).toBeGreaterThan(150)
    } else {
      expect(info.channels).toBe(4)
      const scores = sceneMaskScores(data, 4, 3)
      expect(scores.foreground).toBeGreaterThan(0.95)
      expect(scores.background).toBeGreaterThan(0.95)
      expect(body.warnings).toBeUndefined()
    }
  })

  it('delivers only final_url with delivery_mode=final_url', async () => {
    const jobId = await submit({ delivery_mode: 'final_url' })
    const { body } = await pollUntilSettled(server, jobId)
    expect(body.status).toBe('done')
    expect(typeof body.final_url).toBe('string')
    expect(body).not.toHaveProperty('final_urls')
  })

  it('refuses a result address whose signature is wrong or expired', async () => {
    const jobId = await submit({})
    const { body } = await pollUntilSettled(server, jobId)
    const url = new URL(body.final_url)
    const sig = url.searchParams.get('sig')!
    // Change the first character, whatever it is (replacing it by a fixed one is a no-op 1 time in 64).
    url.searchParams.set('sig', (sig[0] === 'x' ? 'y' : 'x') + sig.slice(1))
    const bad = await fetch(url)
    expect(bad.status).toBe(403)
    expect((await json(bad)).error.code).toBe('invalid_signature')
    const expired = new URL(body.final_url)
    expired.searchParams.set('expires', '1000')
    expect((await fetch(expired)).status).toBe(403)
  })

  it('a job that fails (an image whose data is cut short) leaves no output and refunds its credit', async () => {
    // (Background mode and psd output, which used to fail here, are covered by params-jobs.test.ts.)
    const { key, info } = server.engine.createKey({ credits: 1 })
    const res = await fetch(server.url('/api/v1/upload'), {
      method: 'POST',
      headers: { 'X-API-Key': key },
      body: multipart({}, { bytes: png.subarray(0, 200), type: 'image/png' })
    })
    expect(res.status).toBe(202)
    const { job_id } = await json(res)
    const { status, body } = await pollUntilSettled(server, job_id, key)
    expect(status).toBe(500)
    expect(body.error).toMatchObject({ code: 'job_failed', reason: 'unsupported_image' })
    expect(body.final_url).toBeNull()
    expect(server.engine.jobResults(job_id)).toEqual([])
    expect(server.engine.key(info.id)!.credits).toBe(1)
  })
})

describe('a damaged file, in plain words', () => {
  it("a JPEG cut short fails with what a designer reads, the decoder's own text under details", async () => {
    const jpeg = await sharp(png).jpeg({ quality: 90 }).toBuffer()
    const res = await fetch(server.url('/api/v1/upload'), {
      method: 'POST',
      headers: { 'X-API-Key': server.key },
      body: multipart({}, { bytes: jpeg.subarray(0, Math.floor(jpeg.length * 0.6)), type: 'image/jpeg' })
    })
    expect(res.status).toBe(202) // read when the job runs: the answer comes in the status
    const { status, body } = await pollUntilSettled(server, (await json(res)).job_id)
    expect(status).toBe(500)
    expect(body.error).toMatchObject({
      code: 'job_failed',
      reason: 'unsupported_image',
      message: 'This JPEG is damaged: it ends early (the file was cut short)'
    })
    expect(body.error.message).not.toMatch(/vips/i)
    expect(body.error.details).toEqual([{ field: 'file', issue: expect.stringMatching(/premature end of JPEG image/) }])
  })
})

describe('file_url', () => {
  let images: Server
  let connections = 0
  let imageUrl: string

  beforeAll(async () => {
    images = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png' })
      res.end(png)
    })
    images.on('connection', () => connections++)
    await new Promise<void>((r) => images.listen(0, '127.0.0.1', r))
    imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/ball.png`
  })
  afterAll(() => new Promise<void>((r) => images.close(() => r())))

  it('downloads from a loopback server when private URLs are allowed, and reaches done', async () => {
    const res = await fetch(server.url('/api/v1/upload'), {
      method: 'POST',
      headers: { 'X-API-Key': server.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ file_url: imageUrl })
    })
    expect(res.status).toBe(202)
    const { job_id } = await json(res)
    const { body, seen } = await pollUntilSettled(server, job_id)
    expect(body.status).toBe('done')
    expect(seen.some((s) => s.status === 'queued' || s.status === 'fetching' || s.status === 'segmenting')).toBe(true)
    const out = Buffer.from(await (await fetch(body.final_url)).arrayBuffer())
    expect((await sharp(out).metadata()).width).toBe(SCENE.width)
  })

  it('refuses a loopback file_url when private URLs are not allowed: the job fails, the server sees no connection', async () => {
    const strict = await startTestServer({ allowPrivateNetworkUrls: false })
    try {
      const before = connections
      const res = await fetch(strict.url('/api/v1/upload'), {
        method: 'POST',
        headers: { 'X-API-Key': strict.key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ file_url: imageUrl })
      })
      expect(res.status).toBe(202)
      const { job_id } = await json(res)
      const { status, body } = await pollUntilSettled(strict, job_id)
      expect(status).toBe(500)
      expect(body.error).toMatchObject({ code: 'job_failed', reason: 'fetch_blocked' })
      expect(connections).toBe(before)
    } finally {
      await strict.close()
    }
  })
})
