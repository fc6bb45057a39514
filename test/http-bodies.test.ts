/**
 * Request bodies on the API listener (uploads as JSON and multipart, the app bridge), through
 * real sockets written by hand, for each kind of key: oversized (declared and chunked), slow,
 * and reset bodies are answered with their status and code while the process, its other
 * connections and its queued jobs carry on (an unhandled error here fails the run). Then the
 * budgets: a key that cannot pay holds nothing, one key holds at most its share.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { startHttpServer, type HttpListener } from '../src/main/http/server'
import { multipart, tempDir } from './helpers/engine'
import { tinyPng } from './helpers/fixtures'
import { startAppServer } from './helpers/app-server'
import { json, rawRequest, type RawBody } from './helpers/http'

const KB = 1024
const MB = 1024 * 1024
/** Small, so that bodies past the limits stay small too. */
const MAX_UPLOAD = 256 * KB
/** A window short enough for a test; the floor is far under what a local client sends. */
const FLOOR = { bytesPerSecond: 16 * KB, windowMs: 400 }
const BOUNDARY = 'clipdeskboundary'
const FILE_PART = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`

let root: string
let engine: Engine
let batches: BatchService
let http: HttpListener
/** A second listener on the same engine with a small upload budget, for the share tests. */
let tight: HttpListener
const keys = { owner: '', client: '', other: '', broke: '', worker: '' }
let queuedJob: string

beforeAll(async () => {
  root = tempDir('clipdesk-bodies-')
  engine = new Engine({ dataDir: join(root, 'data'), maxUploadBytes: MAX_UPLOAD })
  batches = new BatchService(engine)
  batches.start()
  ;({ http } = await startAppServer(root, engine, batches, { listener: { bodyRateFloor: FLOOR } }))
  tight = await startHttpServer(engine, {
    port: 0,
    maxInFlightUploadBytes: 1 * MB,
    maxInFlightUploadBytesPerKey: 300 * KB,
    bodyRateFloor: FLOOR
  })
  keys.owner = engine.createKey({ credits: null, name: 'owner', admin: true }).key
  keys.client = engine.createKey({ credits: 5, name: 'script' }).key
  keys.other = engine.createKey({ credits: 5, name: 'another script' }).key
  keys.broke = engine.createKey({ credits: 0, name: 'no credits' }).key
  keys.worker = engine.createKey({ credits: null, name: 'worker', kind: 'worker' }).key
  // A job waiting in the queue (the engine is not started): it must still be there, as it was, after every attack.
  const res = await fetch(`${http.url}/api/v1/upload`, {
    method: 'POST',
    headers: { 'X-API-Key': keys.owner },
    body: multipart({}, { bytes: await tinyPng(), type: 'image/png' })
  })
  queuedJob = (await json(res)).job_id
})

afterAll(async () => {
  await tight.close()
  await http.close()
  await batches.stop()
  await engine.stop()
  rmSync(root, { recursive: true, force: true })
})

function head(listener: HttpListener, path: string, key: string, extra: string): string {
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${listener.port}\r\nX-API-Key: ${key}\r\n${extra}`
}

/** The server still answers, another request meanwhile was answered, and the queued job is as it was. */
async function stillServing(listener = http): Promise<void> {
  const res = await fetch(`${listener.url}/api/v1/status?job_id=${queuedJob}`, { headers: { 'X-API-Key': keys.owner } })
  expect(res.status).toBe(200)
  expect((await json(res)).status).toBe('queued')
}

interface Route {
  name: string
  path: string
  key: keyof typeof keys
  type: string
  /** The route's body limit. */
  limit: number
  /** How its body starts. */
  prefix: string
}

const ROUTES: Route[] = [
  { name: 'JSON upload', path: '/api/v1/upload', key: 'client', type: 'application/json', limit: 1 * MB, prefix: '{"file_url":"' },
  {
    name: 'multipart upload',
    path: '/api/v1/upload',
    key: 'client',
    type: `multipart/form-data; boundary=${BOUNDARY}`,
    limit: MAX_UPLOAD + 1 * MB,
    prefix: FILE_PART
  },
  { name: 'app bridge', path: '/api/app/batchesList', key: 'owner', type: 'application/json', limit: 8 * MB, prefix: '{"x":"' }
]

describe.each(ROUTES)('$name ($key key)', (route) => {
  const send = (extra: string, body: RawBody) =>
    rawRequest(http.port, head(http, route.path, keys[route.key], `Content-Type: ${route.type}\r\n${extra}`), {
      prefix: route.prefix,
      ...body
    }).reply

  it('a chunked body past the limit: 413 payload_too_large, and another upload meanwhile is taken', async () => {
    const [reply, other] = await Promise.all([
      send('Transfer-Encoding: chunked\r\n', { chunked: true, total: route.limit + MB }),
      fetch(`${http.url}/api/v1/upload`, {
        method: 'POST',
        headers: { 'X-API-Key': keys.other, 'Content-Type': 'application/json' },
        body: JSON.stringify({ file_url: 'https://example.com/a.png' })
      })
    ])
    expect([reply.status, reply.code]).toEqual([413, 'payload_too_large'])
    expect(other.status).toBe(202)
    await stillServing()
  })

  it('a declared length past the limit: 413 payload_too_large before any byte is read', async () => {
    const reply = await send(`Content-Length: ${route.limit + 1}\r\n`, { total: 0 })
    expect([reply.status, reply.code]).toEqual([413, 'payload_too_large'])
    await stillServing()
  })

  it('a body sent slower than the rate floor: 408 request_timeout', async () => {
    const reply = await send('Transfer-Encoding: chunked\r\n', { chunked: true, total: 1 * MB, chunk: 64, everyMs: 100 })
    expect([reply.status, reply.code]).toEqual([408, 'request_timeout'])
    await stillServing()
  })

  it('a body reset by its client half way: nothing is answered, the server carries on', async () => {
    const reply = await send(`Content-Length: ${route.limit - 1}\r\n`, { total: route.limit - 1, resetAfter: 128 * KB })
    expect(reply.status).toBeNull()
    await stillServing()
  })
})

describe('the multipart upload as a whole', () => {
  it('a chunked body past the whole-body cap before any part (a long preamble): 413 payload_too_large', async () => {
    const reply = await rawRequest(
      http.port,
      head(
        http,
        '/api/v1/upload',
        keys.client,
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nTransfer-Encoding: chunked\r\n`
      ),
      {
        prefix: 'preamble before the first boundary\r\n',
        chunked: true,
        total: MAX_UPLOAD + 2 * MB
      }
    ).reply
    expect([reply.status, reply.code]).toEqual([413, 'payload_too_large'])
    await stillServing()
  })
})

describe('keys refused before their body is read', () => {
  it.each([
    ['a worker key on the upload', '/api/v1/upload', 'worker', 403, 'forbidden'],
    ['a client key on the app bridge', '/api/app/batchesList', 'client', 403, 'forbidden'],
    ['a 0-credit key on the upload', '/api/v1/upload', 'broke', 402, 'insufficient_credits'],
    ['a bad key', '/api/v1/upload', 'nonsense', 401, 'unauthorized']
  ] as const)('%s, sending a chunked body of 9 MB', async (_, path, key, status, code) => {
    const secret = key in keys ? keys[key as keyof typeof keys] : 'cdk_not-a-key'
    const reply = await rawRequest(
      http.port,
      head(http, path, secret, 'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n'),
      { prefix: '{"file_url":"', chunked: true, total: 9 * MB }
    ).reply
    expect([reply.status, reply.code]).toEqual([status, code])
    await stillServing()
  })
})

describe('budgets that cost the sender', () => {
  const declaredUpload = (key: string, bytes: number, body: Partial<RawBody> = {}) =>
    rawRequest(
      tight.port,
      head(tight, '/api/v1/upload', key, `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${bytes}\r\n`),
      { prefix: FILE_PART, total: bytes, ...body }
    )

  it('four slow senders (a 0-credit key, then one key with credits) do not keep another key out', async () => {
    // A key without credits is refused before its declared length is reserved.
    const broke = await Promise.all(
      Array.from({ length: 4 }, () => declaredUpload(keys.broke, 250 * KB, { chunk: 16, everyMs: 100 }).reply)
    )
    for (const r of broke) expect([r.status, r.code]).toEqual([402, 'insufficient_credits'])

    // One key, four slow uploads of 250 KB: it may hold one (its share is 300 KB); the others
    // are refused at once, and the one it holds is cut at the rate floor.
    const slow = Array.from({ length: 4 }, () => declaredUpload(keys.client, 250 * KB, { chunk: 16, everyMs: 100 }))
    const answers: Array<{ status: number | null; code: string | null }> = []
    for (const s of slow) void s.reply.then((r) => answers.push(r))
    await expect.poll(() => answers.length).toBeGreaterThanOrEqual(3)
    expect(answers.slice(0, 3).map((r) => [r.status, r.code])).toEqual(Array.from({ length: 3 }, () => [503, 'unavailable']))

    // Meanwhile another key's upload of about the same size is taken: without the share, the
    // four would have held all of the 1 MB budget.
    const photo = await sharp({
      create: { width: 300, height: 200, channels: 3, background: '#888', noise: { type: 'gaussian', mean: 128, sigma: 40 } }
    })
      .png()
      .toBuffer()
    expect(photo.length).toBeGreaterThan(150 * KB)
    const other = await fetch(`${tight.url}/api/v1/upload`, {
      method: 'POST',
      headers: { 'X-API-Key': keys.other },
      body: multipart({}, { bytes: photo, type: 'image/png' })
    })
    expect(other.status).toBe(202)

    const held = await Promise.all(slow.map((s) => s.reply))
    expect(held.filter((r) => r.status === 408).map((r) => r.code)).toEqual(['request_timeout'])
    await stillServing(tight)
  })
})
