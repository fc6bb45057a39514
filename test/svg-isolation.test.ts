/**
 * SVG inputs render without touching the network or the disk: references to a loopback
 * canary server, to a local file and to external entities are not followed (the canary sees
 * zero connections, the file's colour never appears), through the decoder and a real job.
 */
import { writeFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { decodeImage } from '../src/main/engine/pipeline/decode/decode'
import { multipart, pollUntilSettled, startTestServer, tempDir, type TestServer } from './helpers/engine'
import { json } from './helpers/http'

let canary: Server
let connections = 0
let canaryUrl: string
let dir: string
let localPng: string
let server: TestServer

beforeAll(async () => {
  canary = createServer((_req, res) => res.end('x'))
  canary.on('connection', () => connections++)
  await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r))
  canaryUrl = `http://127.0.0.1:${(canary.address() as AddressInfo).port}`
  dir = tempDir()
  localPng = join(dir, 'green.png')
  writeFileSync(
    localPng,
    await sharp({ create: { width: 50, height: 50, channels: 3, background: '#00ff00' } })
      .png()
      .toBuffer()
  )
  server = await startTestServer({ allowPrivateNetworkUrls: true })
})
afterAll(async () => {
  await new Promise<void>((r) => canary.close(() => r()))
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

/** With `entities`, the text uses the external entities too: such a document is refused. */
function hostileSvg(entities = false): Buffer {
  return Buffer.from(`<?xml version="1.0"?>
<!DOCTYPE svg [
  <!ENTITY remote SYSTEM "${canaryUrl}/entity.txt">
  <!ENTITY local SYSTEM "file://${localPng}">
]>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100">
  <style>@import url("${canaryUrl}/style.css"); rect.bg { fill: url("${canaryUrl}/paint.svg#p") }</style>
  <rect width="100" height="100" fill="#ffffff"/>
  <image href="${canaryUrl}/remote.png" x="0" y="0" width="50" height="50"/>
  <image xlink:href="file://${localPng}" x="50" y="50" width="50" height="50"/>
  <use href="${canaryUrl}/sprite.svg#shape"/>
  <text x="5" y="95">${entities ? '&remote;&local;' : 'text'}</text>
</svg>`)
}

function hasGreen(data: Buffer, channels: number): boolean {
  for (let i = 0; i < data.length; i += channels) if (data[i] === 0 && data[i + 1] === 255 && data[i + 2] === 0) return true
  return false
}

it('renders a hostile SVG in the decoder without fetching or reading anything', async () => {
  const img = await decodeImage(hostileSvg(), { maxPixels: 100_000_000 })
  expect([img.width, img.height]).toEqual([100, 100])
  expect(hasGreen(img.data, 4)).toBe(false)
  expect(connections).toBe(0)
})

it('runs a hostile SVG upload to done with the canary untouched', async () => {
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': server.key },
    body: multipart({}, { bytes: hostileSvg(), type: 'image/svg+xml' })
  })
  expect(res.status).toBe(202)
  const { body } = await pollUntilSettled(server, (await json(res)).job_id)
  expect(body.status).toBe('done')
  const out = Buffer.from(await (await fetch(body.final_url)).arrayBuffer())
  const { data, info } = await sharp(out).raw().toBuffer({ resolveWithObject: true })
  expect(hasGreen(data, info.channels)).toBe(false)
  expect(connections).toBe(0)
})

it('refuses at upload an SVG that uses an external entity, touching nothing', async () => {
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': server.key },
    body: multipart({}, { bytes: hostileSvg(true), type: 'image/svg+xml' })
  })
  expect(res.status).toBe(422)
  const body = await json(res)
  expect(body.error.code).toBe('validation_failed')
  expect(body.error.details[0].issue).toMatch(/not well-formed XML/)
  expect(connections).toBe(0)
})
