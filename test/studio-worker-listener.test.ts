/**
 * The workers' listener (`clipdesk serve --queue … --worker-listen host:port`) on a real Redis
 * and real sockets, bound to 127.0.0.1 as every test listener is: it answers the worker
 * endpoints with a worker key and nothing else — every client, owner and app route is 404
 * `not_found` there, whatever the key. The option's parsing is checked without binding.
 */
import { rmSync } from 'node:fs'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseWorkerListen } from '../src/main/http/worker-listener'
import { STUDIO_PROTOCOL } from '../src/main/studio/protocol'
import { runCli, type ServeProcess } from './helpers/cli'
import { multipart, tempDir } from './helpers/engine'
import { tinyPng } from './helpers/fixtures'
import { json } from './helpers/http'
import {
  HandWorker,
  REDIS_SERVER,
  createKey,
  startCoordinator,
  startRedis,
  workerListenPort,
  type RedisProcess,
  stopStudio
} from './helpers/studio'

describe('--worker-listen parsing (nothing is bound)', () => {
  it('takes host:port, [v6]:port and a bare port (127.0.0.1)', () => {
    expect(parseWorkerListen('0.0.0.0:7879')).toEqual({ host: '0.0.0.0', port: 7879 })
    expect(parseWorkerListen('[::]:7879')).toEqual({ host: '::', port: 7879 })
    expect(parseWorkerListen('coordinator.local:7879')).toEqual({ host: 'coordinator.local', port: 7879 })
    expect(parseWorkerListen('7879')).toEqual({ host: '127.0.0.1', port: 7879 })
  })

  it('refuses a bad port or host with a readable message', () => {
    for (const bad of ['0.0.0.0:99999', '0.0.0.0:', 'host:port', 'a b:7879', '']) {
      expect(() => parseWorkerListen(bad), bad).toThrow(/--worker-listen/)
    }
  })

  it('is refused by clipdesk serve without --queue, and when malformed', () => {
    const data = tempDir()
    try {
      const alone = runCli(['serve', '--port', '0', '--worker-listen', '127.0.0.1:0', '--data-dir', data])
      expect(alone.code).toBe(2)
      expect(alone.stderr).toContain('--worker-listen need --queue')
      const bad = runCli(['serve', '--port', '0', '--queue', 'redis://127.0.0.1:1', '--worker-listen', '127.0.0.1:x', '--data-dir', data])
      expect(bad.code).toBe(2)
      expect(bad.stderr).toContain('expected --worker-listen to be host:port')
      const notRedis = runCli(['serve', '--port', '0', '--queue', 'http://127.0.0.1:6379', '--data-dir', data])
      expect(notRedis.code).toBe(2)
      expect(notRedis.stderr).toContain('expected a redis:// or rediss:// address')
    } finally {
      rmSync(data, { recursive: true, force: true })
    }
  })
})

describe.skipIf(!REDIS_SERVER)("the workers' listener", () => {
  const data = tempDir()
  let redis: RedisProcess
  let serve: ServeProcess
  let owner: string
  let client: string
  let workerKey: string
  let workerBase: string
  const apiBase = (): string => `http://127.0.0.1:${serve.port}`

  beforeAll(async () => {
    redis = await startRedis()
    owner = createKey(data, ['--admin', '--credits', 'unlimited'])
    client = createKey(data, ['--credits', '10'])
    workerKey = createKey(data, ['--worker', '--name', 'remote'])
    serve = await startCoordinator(data, redis.url, ['--worker-listen', '127.0.0.1:0'])
    workerBase = `http://127.0.0.1:${await workerListenPort(serve)}`
  })
  afterAll(() => stopStudio({ serve, redis, data }))

  const worker = (path: string, body: unknown, key = workerKey): Promise<Response> =>
    new HandWorker(() => workerBase, key, 'remote-1').post(path, body)
  const expectRefused = async (res: Promise<Response>, status: number, code: string, what: string): Promise<void> => {
    const r = await res
    expect(r.status, what).toBe(status)
    expect((await json(r)).error.code, what).toBe(code)
  }

  it('refuses /api/v1/upload and every route that is not a worker endpoint, with 404 not_found', async () => {
    const png = await tinyPng()
    await expectRefused(
      fetch(`${workerBase}/api/v1/upload`, {
        method: 'POST',
        headers: { 'X-API-Key': client },
        body: multipart({}, { bytes: png, type: 'image/png' })
      }),
      404,
      'not_found',
      'upload, client key'
    )
    await expectRefused(
      fetch(`${workerBase}/api/v1/upload`, {
        method: 'POST',
        headers: { 'X-API-Key': owner },
        body: multipart({}, { bytes: png, type: 'image/png' })
      }),
      404,
      'not_found',
      'upload, owner key'
    )
    const gets: Array<[string, string]> = [
      ['/api/v1/status?job_id=00000000-0000-4000-8000-000000000000', client],
      ['/api/v1/health', ''],
      ['/api/v1/openapi.json', ''],
      ['/api/v1/results/00000000-0000-4000-8000-000000000000/clipping.png?expires=9999999999&sig=x', ''],
      ['/api/v1/studio/workers', owner],
      ['/api/v1/studio/workers', workerKey],
      ['/api/app/events', owner],
      ['/', ''],
      ['/index.html', '']
    ]
    for (const [path, key] of gets) {
      await expectRefused(fetch(workerBase + path, { headers: key ? { 'X-API-Key': key } : {} }), 404, 'not_found', path)
    }
    await expectRefused(
      fetch(`${workerBase}/api/app/keysList`, {
        method: 'POST',
        headers: { 'X-API-Key': owner, 'Content-Type': 'application/json' },
        body: ''
      }),
      404,
      'not_found',
      'app bridge'
    )
  })

  it('takes worker keys only on the worker endpoints', async () => {
    await expectRefused(worker('hello', {}, client), 403, 'forbidden', 'client key')
    await expectRefused(worker('hello', {}, owner), 403, 'forbidden', 'owner key')
    await expectRefused(worker('hello', {}, 'cdk_not-a-key'), 401, 'unauthorized', 'bad key')
    await expectRefused(fetch(`${workerBase}/api/v1/studio/hello`, { method: 'POST' }), 401, 'unauthorized', 'no key')
    await expectRefused(
      fetch(`${workerBase}/api/v1/studio/claim`, { headers: new HandWorker(() => workerBase, workerKey).headers() }),
      405,
      'method_not_allowed',
      'GET claim'
    )
    expect(await json(await worker('hello', {}))).toEqual({ ok: true, protocol: STUDIO_PROTOCOL })
  })

  it("runs a job's whole worker protocol: claim, input, renew, progress, result", async () => {
    const up = await fetch(`${apiBase()}/api/v1/upload`, {
      method: 'POST',
      headers: { 'X-API-Key': client },
      body: multipart({}, { bytes: await tinyPng(), type: 'image/png' })
    })
    expect(up.status).toBe(202)
    const id = (await json(up)).job_id as string
    const hand = new HandWorker(() => workerBase, workerKey, 'remote-1')
    const claim = await hand.claimed(id)
    expect(claim).toMatchObject({ job_id: id, attempt: 1 })
    // The input address is relative: the worker fetches it from the listener it called, with its token.
    const input = await fetch(workerBase + claim.input_url, { headers: hand.headers(claim.token, false) })
    expect(input.status).toBe(200)
    expect(Buffer.from(await input.arrayBuffer()).equals(await tinyPng())).toBe(true)
    await expectRefused(hand.input(id), 403, 'claim_invalid', 'input without the token')
    expect(await json(await hand.renew(id, claim.token))).toEqual({ ok: true, lease_ms: 3000 })
    expect((await hand.progress(id, 'encoding', claim.token)).status).toBe(200)
    const out = await sharp({ create: { width: 8, height: 8, channels: 4, background: '#ff000080' } })
      .png()
      .toBuffer()
    const stored = await hand.result(id, claim.token, {
      meta: { warnings: {}, ignored: [], device: 'cpu', uncertainty: 0.1 },
      files: [{ name: 'clipping.png', bytes: out }]
    })
    expect(await json(stored)).toEqual({ stored: true })
    const st = await json(await fetch(`${apiBase()}/api/v1/status?job_id=${id}`, { headers: { 'X-API-Key': client } }))
    expect(st.status).toBe('done')
    expect(Buffer.from(await (await fetch(st.final_url)).arrayBuffer()).equals(out)).toBe(true)
    // The owner sees the remote worker on the API listener.
    const list = await json(await fetch(`${apiBase()}/api/v1/studio/workers`, { headers: { 'X-API-Key': owner } }))
    expect(list.workers).toEqual([expect.objectContaining({ name: 'remote-1', device: 'cpu', jobs_done: 1 })])
  })
})
