/**
 * The remove.bg-compatible endpoint running real jobs (real model, one small drawn photo whose
 * mask the engine caches after the first run), with requests written as remove.bg's published
 * examples send them: curl's multipart `image_file` / `image_url`, a JSON body with
 * `image_file_b64` and `Accept: application/json`, a form-urlencoded body.
 */
import { execFile, spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { AddressInfo } from 'node:net'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, tempDir, type TestServer } from './helpers/engine'
import { SCENE, sceneSvg, scenePng } from './helpers/fixtures'
import { json } from './helpers/http'

let server: TestServer
let png: Buffer
let images: Server
let imageBase: string

beforeAll(async () => {
  server = await startTestServer({ allowPrivateNetworkUrls: true })
  png = await scenePng()
  const bg = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 0, g: 0, b: 255 } } })
    .png()
    .toBuffer()
  images = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'image/png' })
    res.end(req.url === '/bg.png' ? bg : png)
  })
  await new Promise<void>((r) => images.listen(0, '127.0.0.1', r))
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`
})
afterAll(async () => {
  images.close()
  await server.close()
})

function form(fields: Record<string, string>, files: Record<string, Buffer> = { image_file: png }): FormData {
  const f = new FormData()
  for (const [name, bytes] of Object.entries(files)) f.append(name, new Blob([new Uint8Array(bytes)], { type: 'image/png' }), `${name}.png`)
  for (const [k, v] of Object.entries(fields)) f.append(k, v)
  return f
}

async function removebg(
  body: FormData | string | URLSearchParams,
  headers: Record<string, string> = {},
  key = server.key
): Promise<{ res: Response; bytes: Buffer }> {
  const res = await fetch(server.url('/v1.0/removebg'), { method: 'POST', headers: { 'X-Api-Key': key, ...headers }, body })
  const bytes = Buffer.from(await res.arrayBuffer())
  if (res.status !== 200) throw new Error(`${res.status}: ${bytes.toString('utf8')}`)
  return { res, bytes }
}

const header = (res: Response, name: string): number => Number(res.headers.get(name))

/** The foreground headers lie around the ball (cx ± rx, cy ± ry), within a soft edge. */
function expectBallBox(res: Response, k = 1): void {
  const near = (v: number, want: number) => expect(Math.abs(v - want * k)).toBeLessThanOrEqual(12 * Math.max(1, k))
  near(header(res, 'x-foreground-left'), SCENE.cx - SCENE.rx)
  near(header(res, 'x-foreground-top'), SCENE.cy - SCENE.ry)
  near(header(res, 'x-foreground-width'), 2 * SCENE.rx)
  near(header(res, 'x-foreground-height'), 2 * SCENE.ry)
}

/** The stored files of a ZIP archive by name (stored entries, as the endpoint writes them). */
function unzip(bytes: Buffer): Record<string, Buffer> {
  const files: Record<string, Buffer> = {}
  let at = 0
  while (bytes.readUInt32LE(at) === 0x04034b50) {
    const size = bytes.readUInt32LE(at + 18)
    const nameLength = bytes.readUInt16LE(at + 26)
    const extraLength = bytes.readUInt16LE(at + 28)
    const name = bytes.toString('utf8', at + 30, at + 30 + nameLength)
    const data = at + 30 + nameLength + extraLength
    files[name] = bytes.subarray(data, data + size)
    at = data + size
  }
  return files
}

describe('POST /v1.0/removebg', () => {
  it("answers the cut-out as PNG bytes with remove.bg's headers (curl -F image_file=@file -F size=auto)", async () => {
    const { key, info } = server.engine.createKey({ credits: 1 })
    const { res, bytes } = await removebg(form({ size: 'auto' }), {}, key)
    expect(res.headers.get('content-type')).toBe('image/png')
    expect(res.headers.get('x-type')).toBe('auto')
    expect([header(res, 'x-width'), header(res, 'x-height')]).toEqual([SCENE.width, SCENE.height])
    expect(res.headers.get('x-credits-charged')).toBe('1')
    expect(header(res, 'x-ratelimit-limit')).toBeGreaterThan(0)
    expectBallBox(res)
    const meta = await sharp(bytes).metadata()
    expect([meta.width, meta.height, meta.channels]).toEqual([SCENE.width, SCENE.height, 4])
    const { data } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true })
    expect(data[(SCENE.cy * SCENE.width + SCENE.cx) * 4 + 3]).toBeGreaterThan(200)
    expect(data[3]).toBeLessThan(20)
    // The same cost as /api/v1: one credit, taken.
    expect(server.engine.key(info.id)!.credits).toBe(0)
  })

  it('fetches image_url (curl -F image_url=… -F size=auto) and answers JSON with Accept: application/json', async () => {
    const { res, bytes } = await removebg(form({ image_url: `${imageBase}/photo.png`, size: 'auto', type: 'product' }, {}), {
      Accept: 'application/json'
    })
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('x-type')).toBe('product')
    const body = JSON.parse(bytes.toString('utf8'))
    expect(Object.keys(body.data).sort()).toEqual([
      'foreground_height',
      'foreground_left',
      'foreground_top',
      'foreground_width',
      'result_b64'
    ])
    expect(body.data.foreground_width).toBe(header(res, 'x-foreground-width'))
    const meta = await sharp(Buffer.from(body.data.result_b64, 'base64')).metadata()
    expect(meta.format).toBe('png')
  })

  it('takes a JSON body with image_file_b64, bg_color and format=jpg', async () => {
    const { res, bytes } = await removebg(JSON.stringify({ image_file_b64: png.toString('base64'), bg_color: '81d4fa', format: 'jpg' }), {
      'Content-Type': 'application/json'
    })
    expect(res.headers.get('content-type')).toBe('image/jpeg')
    const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true })
    expect(info.channels).toBe(3)
    const corner = [...data.subarray(0, 3)]
    expect(corner.map((v, i) => Math.abs(v - [0x81, 0xd4, 0xfa][i]!)).every((d) => d < 12)).toBe(true)
  })

  it('format=auto is JPG for an opaque background colour given by name, in a form-urlencoded body', async () => {
    const { res } = await removebg(new URLSearchParams({ image_url: `${imageBase}/photo.png`, bg_color: 'white' }))
    expect(res.headers.get('content-type')).toBe('image/jpeg')
  })

  it('answers the alpha matte with channels=alpha, and webp with format=webp', async () => {
    const alpha = await removebg(form({ channels: 'alpha' }))
    const meta = await sharp(alpha.bytes).metadata()
    expect(meta.format).toBe('png')
    expect(meta.hasAlpha).toBe(false)
    const webp = await removebg(form({ format: 'webp' }))
    expect(webp.res.headers.get('content-type')).toBe('image/webp')
    expect((await sharp(webp.bytes).metadata()).format).toBe('webp')
  })

  it('format=zip holds color.jpg and alpha.png of the same size', async () => {
    const { res, bytes } = await removebg(form({ format: 'zip' }))
    expect(res.headers.get('content-type')).toBe('application/zip')
    const files = unzip(bytes)
    expect(Object.keys(files).sort()).toEqual(['alpha.png', 'color.jpg'])
    const [color, alpha] = [await sharp(files['color.jpg']!).metadata(), await sharp(files['alpha.png']!).metadata()]
    expect([color.format, alpha.format]).toEqual(['jpeg', 'png'])
    expect([color.width, color.height]).toEqual([alpha.width, alpha.height])
  })

  it('crop=true with crop_margin crops to the subject plus the margin', async () => {
    const { res } = await removebg(form({ crop: 'true', crop_margin: '10px' }))
    const [w, h] = [header(res, 'x-width'), header(res, 'x-height')]
    expect(Math.abs(w - (2 * SCENE.rx + 20))).toBeLessThanOrEqual(16)
    expect(Math.abs(h - (2 * SCENE.ry + 20))).toBeLessThanOrEqual(16)
    expect(Math.abs(header(res, 'x-foreground-left') - 10)).toBeLessThanOrEqual(8)
  })

  it('scale=50% keeps the canvas and makes the subject half of it, centred', async () => {
    const { res } = await removebg(form({ scale: '50%' }))
    expect([header(res, 'x-width'), header(res, 'x-height')]).toEqual([SCENE.width, SCENE.height])
    const fw = header(res, 'x-foreground-width')
    const fh = header(res, 'x-foreground-height')
    expect(Math.max(fw / SCENE.width, fh / SCENE.height)).toBeGreaterThan(0.4)
    expect(Math.max(fw / SCENE.width, fh / SCENE.height)).toBeLessThanOrEqual(0.52)
    expect(Math.abs(header(res, 'x-foreground-left') + fw / 2 - SCENE.width / 2)).toBeLessThanOrEqual(8)
  })

  it('roi keeps everything outside the region transparent', async () => {
    const { res } = await removebg(form({ roi: '0% 0% 30% 100%' }))
    const right = header(res, 'x-foreground-left') + header(res, 'x-foreground-width')
    expect(right).toBeLessThanOrEqual(Math.round(SCENE.width * 0.3))
  })

  it('lays bg_image_file and bg_image_url under the subject (format=auto: JPG)', async () => {
    const bg = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 0, g: 255, b: 0 } } })
      .png()
      .toBuffer()
    const byFile = await removebg(form({}, { image_file: png, bg_image_file: bg }))
    expect(byFile.res.headers.get('content-type')).toBe('image/jpeg')
    const { data } = await sharp(byFile.bytes).raw().toBuffer({ resolveWithObject: true })
    expect(data[1]).toBeGreaterThan(230)
    expect(data[0]).toBeLessThan(25)
    const byUrl = await removebg(form({ bg_image_url: `${imageBase}/bg.png`, format: 'png' }))
    const corner = await sharp(byUrl.bytes).raw().toBuffer()
    expect(corner[2]).toBeGreaterThan(230)
  })

  it('shadow_type=drop (and add_shadow=true) adds the contact shadow over a background colour', async () => {
    const plain = await removebg(form({ bg_color: 'fff', format: 'png' }))
    const shadowed = await removebg(form({ bg_color: 'fff', format: 'png', shadow_type: 'drop' }))
    const old = await removebg(form({ bg_color: 'fff', format: 'png', add_shadow: 'true' }))
    expect(shadowed.bytes.equals(plain.bytes)).toBe(false)
    expect(old.bytes.equals(shadowed.bytes)).toBe(true)
  })

  it('size=preview caps a larger photo at 0.25 megapixels', async () => {
    const big = await sharp(sceneSvg()).resize(1024, 768).png().toBuffer()
    const { res, bytes } = await removebg(form({ size: 'preview' }, { image_file: big }))
    const [w, h] = [header(res, 'x-width'), header(res, 'x-height')]
    expect(w * h).toBeLessThanOrEqual(250_000)
    expect(w).toBeGreaterThan(560)
    const meta = await sharp(bytes).metadata()
    expect([meta.width, meta.height]).toEqual([w, h])
    expectBallBox(res, w / SCENE.width)
  })

  it('answers 400 unknown_foreground for a photo without a subject, and refunds the credit', async () => {
    const { key, info } = server.engine.createKey({ credits: 1 })
    const flat = await sharp({ create: { width: 96, height: 64, channels: 3, background: { r: 128, g: 128, b: 128 } } })
      .png()
      .toBuffer()
    const res = await fetch(server.url('/v1.0/removebg'), {
      method: 'POST',
      headers: { 'X-Api-Key': key },
      body: form({}, { image_file: flat })
    })
    expect(res.status).toBe(400)
    expect((await json(res)).errors[0].code).toBe('unknown_foreground')
    expect(server.engine.key(info.id)!.credits).toBe(1)
  })
})

const hasCurl = spawnSync('curl', ['--version']).status === 0

describe.skipIf(!hasCurl)("remove.bg's curl examples, unchanged but for the address and key", () => {
  it('curl -H X-API-Key -F image_file=@… -F size=auto -f …/v1.0/removebg -o no-bg.png', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'file.jpg'), png)
    await promisify(execFile)('curl', [
      '-H',
      `X-API-Key: ${server.key}`,
      '-F',
      `image_file=@${join(dir, 'file.jpg')}`,
      '-F',
      'size=auto',
      '-f',
      server.url('/v1.0/removebg'),
      '-o',
      join(dir, 'no-bg.png')
    ])
    const meta = await sharp(readFileSync(join(dir, 'no-bg.png'))).metadata()
    expect([meta.format, meta.width, meta.height, meta.channels]).toEqual(['png', SCENE.width, SCENE.height, 4])
  })

  it('curl -H X-API-Key -F image_url=… -F size=auto -f …/v1.0/removebg -o no-bg.png', async () => {
    const dir = tempDir()
    await promisify(execFile)('curl', [
      '-H',
      `X-API-Key: ${server.key}`,
      '-F',
      `image_url=${imageBase}/example.jpg`,
      '-F',
      'size=auto',
      '-f',
      server.url('/v1.0/removebg'),
      '-o',
      join(dir, 'no-bg.png')
    ])
    expect((await sharp(readFileSync(join(dir, 'no-bg.png'))).metadata()).format).toBe('png')
  })
})

describe('a client that goes away', () => {
  it('cancels its job and gets its credit back', async () => {
    const idle = await startTestServer({ run: false })
    try {
      const { key, info } = idle.engine.createKey({ credits: 1 })
      const stop = new AbortController()
      const sent = fetch(idle.url('/v1.0/removebg'), {
        method: 'POST',
        headers: { 'X-Api-Key': key },
        body: form({}),
        signal: stop.signal
      }).catch((e: Error) => e)
      let jobId: string | undefined
      while (!jobId) {
        jobId = idle.engine.jobsOfKey(info.id, null, 1)[0]?.job.id
        await new Promise((r) => setTimeout(r, 20))
      }
      expect(idle.engine.key(info.id)!.credits).toBe(0)
      stop.abort()
      expect(await sent).toBeInstanceOf(Error)
      while (idle.engine.job(jobId)!.status !== 'cancelled') await new Promise((r) => setTimeout(r, 20))
      expect(idle.engine.key(info.id)!.credits).toBe(1)
    } finally {
      await idle.close()
    }
  })
})
