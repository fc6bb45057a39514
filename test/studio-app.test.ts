/**
 * Studio mode from the app's side, over the app bridge of a real `clipdesk serve` (the same
 * handlers answer IPC in the desktop app): the queue settings are checked and stored, apply
 * at the next start, and the API screen's workers list is answered and pushed live as a
 * worker calls in. A real Redis on a free loopback port; the test plays the worker by hand
 * (no model).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sanitizeSettings } from '../src/main/settings'
import { redisConnection, shownQueueUrl } from '../src/main/studio/protocol'
import { DEFAULT_SETTINGS, settingsPatchSchema } from '../src/shared/app'
import { startServe, type ServeProcess } from './helpers/cli'
import { tempDir } from './helpers/engine'
import { json } from './helpers/http'
import { REDIS_SERVER, createKey, startRedis, waitFor, workerListenPort, type RedisProcess, stopStudio } from './helpers/studio'
import { STUDIO_PROTOCOL } from '../src/main/studio/protocol'

describe('queue settings (schema)', () => {
  it('takes an empty address, redis:// and rediss://, and refuses anything else with a reason', () => {
    for (const ok of ['', 'redis://queue:6379', 'rediss://user:pw@queue.example:6380/2', '  redis://queue  ']) {
      expect(settingsPatchSchema.safeParse({ queueUrl: ok }).success, ok).toBe(true)
    }
    const refused: Array<[string, RegExp]> = [
      ['http://queue:6379', /redis:\/\/ or rediss:\/\/ address, not http:/],
      ['queue:6379', /redis:\/\/ or rediss:\/\//],
      ['redis://', /no host/],
      ['not a url', /e\.g\. redis:\/\/queue-host:6379/]
    ]
    for (const [value, message] of refused) {
      const r = settingsPatchSchema.safeParse({ queueUrl: value })
      expect(r.success, value).toBe(false)
      expect(r.error!.issues[0]!.message, value).toMatch(message)
      expect(r.error!.issues[0]!.path, value).toEqual(['queueUrl'])
    }
    expect(settingsPatchSchema.safeParse({ localWorker: 'yes' }).success).toBe(false)
  })

  it('turns an address into BullMQ connection options (TLS for rediss://) and never shows its password', () => {
    expect(redisConnection('rediss://user:p%40ss@queue.example:6380/2')).toEqual({
      host: 'queue.example',
      port: 6380,
      username: 'user',
      password: 'p@ss',
      db: 2,
      tls: {}
    })
    expect(redisConnection('redis://queue')).toEqual({ host: 'queue', port: 6379 })
    expect(() => redisConnection('http://queue:6379')).toThrow(/redis:\/\/ or rediss:\/\//)
    expect(shownQueueUrl('redis://user:secret@queue:6379')).toBe('redis://user:***@queue:6379')
  })

  it('falls back to the embedded default when a stored address is not valid', () => {
    expect(sanitizeSettings({ queueUrl: 'ftp://x', localWorker: false })).toEqual({ ...DEFAULT_SETTINGS, localWorker: false })
  })
})

describe.skipIf(!REDIS_SERVER)('studio mode in the app (bridge of clipdesk serve)', () => {
  const data = tempDir()
  let redis: RedisProcess
  let serve: ServeProcess
  let owner: string
  const base = (): string => `http://127.0.0.1:${serve.port}`
  const call = (method: string, arg?: unknown): Promise<Response> =>
    fetch(`${base()}/api/app/${method}`, {
      method: 'POST',
      headers: { 'X-API-Key': owner, 'Content-Type': 'application/json' },
      body: arg === undefined ? '' : JSON.stringify(arg)
    })

  beforeAll(async () => {
    redis = await startRedis()
    serve = await startServe(data)
    owner = serve.key!
  })
  afterAll(() => stopStudio({ serve, redis, data }))

  it('lists no workers in the embedded default', async () => {
    expect(await json(await call('studioWorkers'))).toEqual({ enabled: false, queue: null, queue_available: null, workers: [] })
  })

  it('refuses a queue address that is not redis:// or rediss://, naming the field', async () => {
    const res = await call('settingsSet', { queueUrl: 'http://127.0.0.1:6379' })
    expect(res.status).toBe(422)
    const body = await json(res)
    expect(body.error.code).toBe('validation_failed')
    expect(body.error.details).toEqual([{ field: 'queueUrl', issue: 'expected a redis:// or rediss:// address, not http://' }])
    expect((await json(await call('settingsGet'))).settings.queueUrl).toBe('')
  })

  it('stores the queue settings, asks for a restart, and starts in studio mode after it', async () => {
    const res = await call('settingsSet', { queueUrl: redis.url, localWorker: false })
    expect(res.status).toBe(200)
    const view = await json(res)
    expect(view.settings).toMatchObject({ queueUrl: redis.url, localWorker: false })
    expect(view.restartNeeded).toEqual(expect.arrayContaining(['queueUrl', 'localWorker']))
    expect(JSON.parse(readFileSync(join(data, 'settings.json'), 'utf8'))).toMatchObject({ queueUrl: redis.url, localWorker: false })
    // Still the embedded queue until the restart.
    expect((await json(await call('studioWorkers'))).enabled).toBe(false)

    serve.child.kill('SIGTERM')
    expect(await serve.exited).toBe(0)
    serve = await startServe(data, ['--worker-listen', '127.0.0.1:0'])
    await waitFor('the studio line', () => serve.output().includes('Studio queue:'), 170_000)
    expect(serve.output()).toContain(`Studio queue: ${redis.url} (no local worker)`)
    expect((await json(await call('settingsGet'))).restartNeeded).toEqual([])
    await waitFor('the queue to answer', async () => (await json(await call('studioWorkers'))).queue_available === true, 170_000)
    expect(await json(await call('studioWorkers'))).toEqual({ enabled: true, queue: `${redis.url}`, queue_available: true, workers: [] })
  })

  it('pushes the workers list live as a worker calls in', async () => {
    const workerKey = createKey(data, ['--worker'])
    const workerBase = `http://127.0.0.1:${await workerListenPort(serve)}`
    const controller = new AbortController()
    const events = await fetch(`${base()}/api/app/events`, { headers: { 'X-API-Key': owner }, signal: controller.signal })
    const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader()
    const hello = await fetch(`${workerBase}/api/v1/studio/hello`, {
      method: 'POST',
      headers: {
        'X-API-Key': workerKey,
        'X-Clipdesk-Studio': String(STUDIO_PROTOCOL),
        'Content-Type': 'application/json',
        'X-Clipdesk-Worker': 'studio-pc-2',
        'X-Clipdesk-Device': 'cpu'
      },
      body: '{}'
    })
    expect(hello.status).toBe(200)
    let text = ''
    while (!text.includes('studio-pc-2')) {
      const { value, done } = await reader.read()
      if (done) break
      text += value
    }
    controller.abort()
    // The last `workers` event pushed (an earlier one may predate the hello).
    const pushed = [...text.matchAll(/event: workers\ndata: (.*)\n/g)].at(-1)
    expect(pushed).toBeDefined()
    expect(JSON.parse(pushed![1]!)).toMatchObject({
      enabled: true,
      queue_available: true,
      workers: [{ name: 'studio-pc-2', device: 'cpu', jobs_done: 0, jobs_per_hour: null }]
    })
    const listed = (await json(await call('studioWorkers'))).workers
    expect(listed).toEqual([expect.objectContaining({ name: 'studio-pc-2', device: 'cpu', jobs_done: 0 })])
  })
})
