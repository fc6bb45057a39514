/**
 * Large base64 bodies on `/v1.0/removebg`: what the docs promise is taken (a 40 MB image as
 * `image_file_b64` in a JSON and in a form-urlencoded body, parsed and decoded off the main
 * thread), and the in-flight budget answers 503 only while it is truly shared: a lone body past
 * a key's share is taken, one the whole budget could never hold is refused as too large (never a
 * 503 a client would retry for ever). Real engine and model (the photo is the small scene padded
 * with JPEG comments to 40 MB, so the model's run is short), real listeners on 127.0.0.1.
 */
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHttpServer, type HttpListener } from '../src/main/http/server'
import { startTestServer, type TestServer } from './helpers/engine'
import { SCENE, sceneJpeg } from './helpers/fixtures'

const MB = 1024 * 1024
let server: TestServer
/** The same engine behind a small budget: 4 MB in all, 1 MB a key. */
let tight: HttpListener
let big: Buffer

/** A JPEG of `size` bytes: the scene with comment segments (COM, skipped by every decoder) after SOI. */
async function paddedJpeg(size: number): Promise<Buffer> {
  const jpeg = await sceneJpeg()
  const segments: Buffer[] = []
  let left = size - jpeg.length
  while (left > 4) {
    const n = Math.min(65_533, left - 4)
    const head = Buffer.from([0xff, 0xfe, 0, 0])
    head.writeUInt16BE(n + 2, 2)
    segments.push(head, Buffer.alloc(n, 0x20))
    left -= n + 4
  }
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)])
}

beforeAll(async () => {
  server = await startTestServer()
  tight = await startHttpServer(server.engine, { port: 0, maxInFlightUploadBytes: 4 * MB, maxInFlightUploadBytesPerKey: 1 * MB })
  big = await paddedJpeg(40 * 1000 * 1000)
})
afterAll(async () => {
  await tight.close()
  await server.close()
})

async function post(base: string, body: string, type: string): Promise<{ res: Response; bytes: Buffer }> {
  const res = await fetch(`${base}/v1.0/removebg`, {
    method: 'POST',
    headers: { 'X-Api-Key': server.key, 'Content-Type': type },
    body
  })
  return { res, bytes: Buffer.from(await res.arrayBuffer()) }
}

describe('a 40 MB image as base64 is taken', () => {
  it('in a JSON body: 200 and the cut-out', async () => {
    expect(big.length).toBe(40_000_000)
    const { res, bytes } = await post(
      server.http.url,
      JSON.stringify({ image_file_b64: big.toString('base64'), size: 'auto' }),
      'application/json'
    )
    expect(res.status, bytes.toString('utf8', 0, 300)).toBe(200)
    const meta = await sharp(bytes).metadata()
    expect([meta.format, meta.width, meta.height, meta.channels]).toEqual(['png', SCENE.width, SCENE.height, 4])
  })

  it('in a form-urlencoded body (its "+" and "/" escaped): 200 and the cut-out', async () => {
    const body = new URLSearchParams({ image_file_b64: big.toString('base64'), size: 'auto' }).toString()
    expect(body.length).toBeGreaterThan(53_000_000)
    const { res, bytes } = await post(server.http.url, body, 'application/x-www-form-urlencoded')
    expect(res.status, bytes.toString('utf8', 0, 300)).toBe(200)
    expect((await sharp(bytes).metadata()).width).toBe(SCENE.width)
  })
})

describe('the budget refuses only what it could take later', () => {
  it("a lone 2 MB base64 body of one key is taken past the key's 1 MB share", async () => {
    const photo = await paddedJpeg(1.5 * MB)
    const { res, bytes } = await post(tight.url, JSON.stringify({ image_file_b64: photo.toString('base64') }), 'application/json')
    expect(res.status, bytes.toString('utf8', 0, 300)).toBe(200)
  })

  it('a body larger than the whole budget is 400 file_too_large, not a 503 to retry for ever', async () => {
    const photo = await paddedJpeg(4 * MB)
    const { res, bytes } = await post(tight.url, JSON.stringify({ image_file_b64: photo.toString('base64') }), 'application/json')
    expect(res.status).toBe(400)
    expect(res.headers.get('retry-after')).toBeNull()
    expect(JSON.parse(bytes.toString('utf8')).errors[0].code).toBe('file_too_large')
  })

  it('base64 that is not base64 is 400 invalid_image_file_b64, the fields still checked first', async () => {
    const bad = await post(server.http.url, JSON.stringify({ image_file_b64: `${'A'.repeat(2 * MB)}*` }), 'application/json')
    expect(bad.res.status).toBe(400)
    expect(JSON.parse(bad.bytes.toString('utf8')).errors[0].code).toBe('invalid_image_file_b64')
    const both = await post(
      server.http.url,
      JSON.stringify({ image_file_b64: '*', image_url: 'http://127.0.0.1/a.png' }),
      'application/json'
    )
    expect(JSON.parse(both.bytes.toString('utf8')).errors[0].code).toBe('multiple_sources')
  })

  it('a JSON body that is no object, a form field sent twice, more than 64 fields or one over 64 KB is 400 invalid_request', async () => {
    for (const [body, type] of [
      ['[1,2]', 'application/json'],
      ['{"size":', 'application/json'],
      ['size=auto&size=full', 'application/x-www-form-urlencoded'],
      [JSON.stringify(Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`f${i}`, 1]))), 'application/json'],
      [JSON.stringify({ size: 'x'.repeat(65 * 1024) }), 'application/json'],
      [JSON.stringify({ size: { deep: 'x'.repeat(65 * 1024) } }), 'application/json']
    ] as const) {
      const { res, bytes } = await post(server.http.url, body, type)
      expect(res.status).toBe(400)
      expect(JSON.parse(bytes.toString('utf8')).errors[0].code).toBe('invalid_request')
    }
  })
})
