/**
 * Untrusted images are decoded in killable sandbox processes (engine/sandbox): a costly SVG
 * filter, a decompression bomb or an SVG smuggling a huge image ends its own job with a clear
 * reason, the server keeps answering, and the next job runs. Real server, real sockets, real
 * sandbox processes; the last job runs the real model once.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Previews } from '../src/main/batches/previews'
import type { ItemRecord } from '../src/main/batches/store'
import { multipart, pollUntilSettled, startTestServer, tempDir, type TestServer } from './helpers/engine'
import { json } from './helpers/http'

let server: TestServer

beforeAll(async () => {
  // Limits small enough for a test to reach them with tiny files; the defaults are in options.ts.
  server = await startTestServer({ decodeTimeoutMs: 1500, decodeMemoryBytes: 320 * 2 ** 20, concurrency: 1 })
})
afterAll(() => server.close())

async function upload(bytes: Buffer, type: string, on = server): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(on.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': on.key },
    body: multipart({}, { bytes, type })
  })
  return { status: res.status, body: (await json(res)) as Record<string, any> }
}

async function openapiAnswers(): Promise<boolean> {
  const res = await fetch(server.url('/api/v1/openapi.json'))
  await res.arrayBuffer()
  return res.status === 200
}

/** A one-colour PNG: a few KB for millions of pixels. */
function flatPng(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#0f0' } })
    .png()
    .toBuffer()
}

describe('SVG', () => {
  it('CSS `url(` followed by 12,000 spaces is answered, and the server stays responsive', async () => {
    const spaces = ' '.repeat(12_000)
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><style>rect{fill:url(${spaces}}</style><rect width="64" height="64" style="fill:url(${spaces}x" fill="#08f"/></svg>`
    const pending = upload(Buffer.from(svg), 'image/svg+xml')
    expect(await openapiAnswers()).toBe(true)
    const res = await pending
    expect(res.status).toBe(202)
    const settled = await pollUntilSettled(server, res.body.job_id)
    expect(settled.body.status).toBe('done')
  })

  it('an image smuggled as data: past the pixel limit is refused at upload: 422 image_too_large', async () => {
    // 100×100 outside, 12,000×12,000 (144 MP) inside.
    const inner = await flatPng(12_000, 12_000)
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><image width="100" height="100" href="data:image/png;base64,${inner.toString('base64')}"/></svg>`
    const res = await upload(Buffer.from(svg), 'image/svg+xml')
    expect(res.status).toBe(422)
    expect(res.body.error.code).toBe('image_too_large')
    expect(res.body.error.details[0].issue).toMatch(/embeds images of 144\.0 MP/)
  })

  it('a filter that renders past the time limit is killed: the job fails with decode_timeout, the next job is done', async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="3000" height="3000"><filter id="f"><feMorphology radius="500"/><feGaussianBlur stdDeviation="600"/></filter><rect width="3000" height="3000" fill="#f00" filter="url(#f)"/></svg>`
    const slow = await upload(Buffer.from(svg), 'image/svg+xml')
    expect(slow.status).toBe(202)
    const failed = await pollUntilSettled(server, slow.body.job_id)
    expect(failed.status).toBe(500)
    expect(failed.body.error).toMatchObject({ code: 'job_failed', reason: 'decode_timeout' })
    expect(failed.body.error.message).toBe('Reading this image took too long and was stopped: it may be damaged or very large')
    expect(failed.body.error.details).toEqual([{ field: 'file', issue: expect.stringMatching(/took longer than 1.5 s and was stopped/) }])
    expect(await openapiAnswers()).toBe(true)

    const next = await upload(
      await sharp({ create: { width: 96, height: 64, channels: 3, background: '#c84' } })
        .jpeg()
        .toBuffer(),
      'image/jpeg'
    )
    expect((await pollUntilSettled(server, next.body.job_id)).body.status).toBe('done')
  })
})

describe('bombs', () => {
  it('a PNG whose pixels need more memory than the sandbox may use fails the job with image_too_large; the process is replaced', async () => {
    // 9,000 × 9,000 = 81 MP is under the pixel limit, but its RGBA alone is 324 MB. The memory
    // limit alone must stop it: a server whose time limit a loaded machine cannot reach first.
    const roomy = await startTestServer({ decodeTimeoutMs: 120_000, decodeMemoryBytes: 320 * 2 ** 20, concurrency: 1 })
    try {
      const res = await upload(await flatPng(9_000, 9_000), 'image/png', roomy)
      expect(res.status).toBe(202)
      const failed = await pollUntilSettled(roomy, res.body.job_id)
      expect(failed.body.error).toMatchObject({ code: 'job_failed', reason: 'image_too_large' })
      expect(failed.body.error.message).toBe('This image is too large to read: it needs more memory than allowed')
      expect(failed.body.error.details).toEqual([
        { field: 'file', issue: expect.stringMatching(/needed more than 320 MB of memory and was stopped/) }
      ])
      expect((await fetch(roomy.url('/api/v1/health'))).status).toBe(200)
    } finally {
      await roomy.close()
    }
  })

  it('a PSD whose header says 0×0 is refused at upload: 422 validation_failed', async () => {
    const psd = Buffer.alloc(64)
    psd.write('8BPS', 0, 'latin1')
    psd.writeUInt16BE(1, 4) // version
    psd.writeUInt16BE(3, 12) // channels
    psd.writeUInt16BE(8, 22) // depth
    psd.writeUInt16BE(3, 24) // RGB
    const res = await upload(psd, 'image/vnd.adobe.photoshop')
    expect(res.status).toBe(422)
    expect(res.body.error.code).toBe('validation_failed')
    expect(res.body.error.details[0].issue).toMatch(/psd header is damaged or says the image is empty/)
  })
})

describe('batch previews', () => {
  it('render an SVG input cleaned, so it cannot pull in another stored file', async () => {
    const dir = tempDir()
    const stolen = join(dir, 'other-upload.png')
    writeFileSync(stolen, await flatPng(40, 40))
    const svgPath = join(dir, 'input.svg')
    writeFileSync(
      svgPath,
      `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#00f"/><image href="${stolen}" width="40" height="40"/><image href="file://${stolen}" width="40" height="40"/><image href="other-upload.png" width="40" height="40"/></svg>`
    )
    const previews = new Previews(join(dir, 'previews'), (request) => server.engine.previewInSandbox(request))
    const item = { id: 'item-1', batchId: 'batch-1', jobId: 'job-1', outputs: [] } as unknown as ItemRecord
    const file = await previews.file(item, 'before', svgPath)
    expect(file && existsSync(file)).toBe(true)
    const { data, info } = await sharp(file!).raw().toBuffer({ resolveWithObject: true })
    let green = 0
    for (let i = 0; i < data.length; i += info.channels) if (data[i + 1]! > 200 && data[i + 2]! < 50) green++
    expect(green).toBe(0)
    expect([data[0], data[1], data[2]]).toEqual([0, 0, 255])
  })
})
