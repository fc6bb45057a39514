/**
 * Cost bounded by what was paid, while jobs run (docs/api.md §3, §15): compose and encode run
 * in a sandbox process with a memory limit of its own, and a `file_url` job's cost is settled
 * once the download is decoded. A real engine, the real model (one small input, so it runs
 * once: the mask cache serves the rest), and a loopback server for the downloads.
 */
import { existsSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sceneSvg } from './helpers/fixtures'
import { multipart, pollUntilSettled, startTestServer, type TestServer } from './helpers/engine'
import { json } from './helpers/http'

const RENDER_LIMIT = 300 * 2 ** 20

let server: TestServer
let images: Server
let imageUrl: string
let scene: Buffer

beforeAll(async () => {
  server = await startTestServer({ allowPrivateNetworkUrls: true })
  scene = await sharp(sceneSvg()).resize(400, 300).png().toBuffer()
  images = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': scene.length })
    res.end(scene)
  })
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve))
  imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/scene.png`
})
afterAll(async () => {
  await new Promise((resolve) => images.close(resolve))
  await server.close()
})

async function submit(apiKey: string, fields: Record<string, string>, byUrl = false, target = server): Promise<Record<string, any>> {
  const res = byUrl
    ? await fetch(target.url('/api/v1/upload'), {
        method: 'POST',
        headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ file_url: imageUrl, ...fields })
      })
    : await fetch(target.url('/api/v1/upload'), {
        method: 'POST',
        headers: { 'X-API-Key': apiKey },
        body: multipart(fields, { bytes: scene, type: 'image/png', name: 'scene.png' })
      })
  const accepted = await json(res)
  expect(res.status, JSON.stringify(accepted)).toBe(202)
  return (await pollUntilSettled(target, accepted.job_id, apiKey)).body
}

describe('compose and encode run in a sandbox process of their own', () => {
  let tight: TestServer
  beforeAll(async () => {
    tight = await startTestServer({ renderMemoryBytes: RENDER_LIMIT })
  })
  afterAll(() => tight.close())

  it('a render past its memory limit ends the job image_too_large, its credit given back; the next job is done', async () => {
    const { info, key } = tight.engine.createKey({ credits: 5 })
    // 10000×10000 RGBA is 400 MB: more than this engine lets a render process hold.
    const failed = await submit(key, { mode: 'params', params: 'size=10000x10000;variations=clipping' }, false, tight)
    expect(failed.status).toBe('failed')
    expect(failed.error).toMatchObject({
      code: 'job_failed',
      reason: 'image_too_large',
      message: 'The outputs asked for are too large to make: they need more memory than allowed (ask for a smaller size)',
      details: [{ field: 'file', issue: 'making the outputs needed more than 300 MB of memory and was stopped' }]
    })
    expect(tight.engine.key(info.id)!.credits).toBe(5)
    expect(existsSync(tight.engine.resultDir(failed.job_id))).toBe(false)
    // The engine itself was never in danger: it answers, and the next job is made as usual.
    expect((await fetch(tight.url('/api/v1/health'))).status).toBe(200)
    const done = await submit(key, { mode: 'clipping' }, false, tight)
    expect(done.status).toBe('done')
    const stored = tight.engine.jobResults(done.job_id)
    expect(stored).toHaveLength(1)
    expect(stored[0]!.bytes).toBe(readFileSync(stored[0]!.path).length)
    expect(await sharp(stored[0]!.path).metadata()).toMatchObject({ format: 'png', width: 400, height: 300 })
    expect(tight.engine.key(info.id)!.credits).toBe(4)
  })
})

describe('a file_url job is settled once its input is known', () => {
  // 400×300 with a 3000 px margin: a 6400×6300 canvas, three variations, 121 MP: 2 credits.
  const LARGE = { mode: 'params', params: 'margin=3000px;variations=clipping,background,mask;background=#ffffff' }

  it('charged 1 at acceptance, the difference once the download is decoded', async () => {
    const { info, key } = server.engine.createKey({ credits: 5 })
    const done = await submit(key, LARGE, true)
    expect(done.status, JSON.stringify(done)).toBe('done')
    expect(Object.keys(done.final_urls)).toEqual(['clipping', 'background', 'mask'])
    expect(server.engine.key(info.id)!.credits).toBe(3)
    expect(server.engine.creditsHeldFor(done.job_id)).toBe(2)
  })

  it('a key that cannot pay the difference: the job fails insufficient_credits and its credit is given back', async () => {
    const { info, key } = server.engine.createKey({ credits: 1 })
    const failed = await submit(key, LARGE, true)
    expect(failed.status).toBe('failed')
    expect(failed.error).toMatchObject({
      code: 'job_failed',
      reason: 'insufficient_credits',
      message: 'the outputs (121 MP) cost 2 credits and the API key could not pay the 1 more; nothing was charged'
    })
    expect(server.engine.key(info.id)!.credits).toBe(1)
  })

  it('a download whose canvas is over the limits fails image_too_large, credit given back', async () => {
    const { info, key } = server.engine.createKey({ credits: 2 })
    const failed = await submit(key, { mode: 'params', params: 'margin=5000px;variations=clipping' }, true)
    expect(failed.status).toBe('failed')
    expect(failed.error).toMatchObject({
      reason: 'image_too_large',
      message: 'the output canvas would be 10400×10300, over the limit (30,000 px a side, 100 MP a variation); use a smaller size or margin'
    })
    expect(server.engine.key(info.id)!.credits).toBe(2)
  })
})
