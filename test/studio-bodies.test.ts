/**
 * Request bodies on the studio endpoints, on both listeners of an in-process coordinator (a
 * real Redis, real sockets written by hand): a claim body past its limit (declared and
 * chunked), slow or reset, and result uploads past their limit or too slow, are answered with
 * their status and code while the coordinator carries on (an unhandled error here fails the
 * run). The result budget: one worker key holds at most one result's worth of it, so another
 * worker's result is taken while the first sends slowly.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EnginePort } from '../src/main/engine/ports'
import { EngineError } from '../src/main/engine/errors'
import { startHttpServer, type HttpListener } from '../src/main/http/server'
import { startWorkerListener } from '../src/main/http/worker-listener'
import type { StudioCoordinator } from '../src/main/studio/coordinator'
import { createStudioEngine } from '../src/main/studio/studio'
import { STUDIO_PROTOCOL } from '../src/main/studio/protocol'
import { tempDir } from './helpers/engine'
import { tinyPng } from './helpers/fixtures'
import { json, rawRequest, type RawBody } from './helpers/http'
import { HandWorker, REDIS_SERVER, startRedis, type HandClaim, type RedisProcess } from './helpers/studio'
import { waitFor } from './helpers/wait'

const KB = 1024
const MB = 1024 * 1024
const MAX_RESULT = 1 * MB
const FLOOR = { bytesPerSecond: 16 * KB, windowMs: 400 }
const BOUNDARY = 'clipdeskboundary'

describe.skipIf(!REDIS_SERVER)('studio bodies', () => {
  let root: string
  let redis: RedisProcess
  let engine: EnginePort
  let coordinator: StudioCoordinator
  let api: HttpListener
  let workers: HttpListener
  let clientId: string
  const workerKeys = { a: '', b: '' }

  beforeAll(async () => {
    root = tempDir('clipdesk-studio-bodies-')
    redis = await startRedis()
    ;({ engine, coordinator } = createStudioEngine(
      { dataDir: join(root, 'data') },
      { queueUrl: redis.url, localWorker: false, maxResultBytes: MAX_RESULT }
    ))
    engine.start()
    api = await startHttpServer(engine, { port: 0, studio: coordinator, bodyRateFloor: FLOOR })
    workers = await startWorkerListener(engine, coordinator, { host: '127.0.0.1', port: 0 }, { bodyRateFloor: FLOOR })
    clientId = engine.createKey({ credits: null, name: 'client' }).info.id
    workerKeys.a = engine.createKey({ credits: null, name: 'worker a', kind: 'worker' }).key
    workerKeys.b = engine.createKey({ credits: null, name: 'worker b', kind: 'worker' }).key
  })
  afterAll(async () => {
    await workers?.close()
    await api?.close()
    await engine?.stop()
    await redis?.stop()
    rmSync(root, { recursive: true, force: true })
  })

  const newJob = async (): Promise<string> => {
    let jobId: string | null = null
    // The coordinator takes uploads once it has seen Redis answer.
    await waitFor('the coordinator to take an upload', async () => {
      const accepted = await engine
        .upload({ fields: {}, file: { bytes: await tinyPng(), mimeType: 'image/png' }, keyId: clientId })
        .catch((err: unknown) => {
          if (err instanceof EngineError) return null
          throw err
        })
      jobId = accepted?.job_id ?? null
      return jobId !== null
    })
    return jobId!
  }

  const studioHead = (port: number, path: string, key: string, extra: string, token?: string): string =>
    `POST /api/v1/studio/${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-API-Key: ${key}\r\nX-Clipdesk-Studio: ${STUDIO_PROTOCOL}\r\nX-Clipdesk-Worker: hand\r\n${token ? `X-Clipdesk-Claim: ${token}\r\n` : ''}${extra}`

  /** The coordinator still answers its workers on both listeners. */
  const stillServing = async (): Promise<void> => {
    for (const listener of [api, workers])
      expect((await new HandWorker(() => listener.url, workerKeys.b).post('hello', {})).status).toBe(200)
  }

  describe.each([
    ['the API listener', () => api],
    ["the workers' listener", () => workers]
  ])('claim on %s (worker key)', (_, listener) => {
    const claim = (extra: string, body: RawBody) =>
      rawRequest(listener().port, studioHead(listener().port, 'claim', workerKeys.a, `Content-Type: application/json\r\n${extra}`), {
        prefix: '{"job_id":"',
        ...body
      }).reply

    it('a chunked body over 16 KB: 413 payload_too_large', async () => {
      const reply = await claim('Transfer-Encoding: chunked\r\n', { chunked: true, total: 2 * MB, chunk: 4 * KB })
      expect([reply.status, reply.code]).toEqual([413, 'payload_too_large'])
      await stillServing()
    })

    it('a declared length over 16 KB: 413 payload_too_large', async () => {
      const reply = await claim(`Content-Length: ${16_385}\r\n`, { total: 0 })
      expect([reply.status, reply.code]).toEqual([413, 'payload_too_large'])
      await stillServing()
    })

    it('a body slower than the rate floor: 408 request_timeout', async () => {
      const reply = await claim('Transfer-Encoding: chunked\r\n', { chunked: true, total: 16 * KB, chunk: 8, everyMs: 100 })
      expect([reply.status, reply.code]).toEqual([408, 'request_timeout'])
      await stillServing()
    })

    it('a body reset half way: the coordinator carries on', async () => {
      const reply = await claim('Content-Length: 16000\r\n', { total: 16_000, chunk: 1024, resetAfter: 4 * KB })
      expect(reply.status).toBeNull()
      await stillServing()
    })
  })

  describe('results', () => {
    const claimed = async (key: string): Promise<HandClaim> => new HandWorker(() => workers.url, key).claimed(await newJob())
    const result = (claim: HandClaim, key: string, extra: string, body: RawBody) =>
      rawRequest(
        workers.port,
        studioHead(
          workers.port,
          `result/${claim.job_id}`,
          key,
          `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n${extra}`,
          claim.token
        ),
        {
          prefix: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${claim.params.variations[0]}.${claim.format}"; filename="r"\r\n\r\n`,
          ...body
        }
      )

    it('a chunked result past the limit: 413; a slow one: 408; the job still takes an honest result', async () => {
      const claim = await claimed(workerKeys.a)
      const big = await result(claim, workerKeys.a, 'Transfer-Encoding: chunked\r\n', { chunked: true, total: MAX_RESULT + 2 * MB }).reply
      expect([big.status, big.code]).toEqual([413, 'payload_too_large'])
      const slow = await result(claim, workerKeys.a, 'Transfer-Encoding: chunked\r\n', {
        chunked: true,
        total: 512 * KB,
        chunk: 16,
        everyMs: 100
      }).reply
      expect([slow.status, slow.code]).toEqual([408, 'request_timeout'])
      const honest = await new HandWorker(() => workers.url, workerKeys.a).result(claim.job_id, claim.token, {
        meta: { warnings: {}, ignored: claim.params.variations.slice(1), device: 'cpu', uncertainty: 0.1 },
        files: [{ name: `${claim.params.variations[0]}.${claim.format}`, bytes: await tinyPng() }]
      })
      expect(await json(honest)).toEqual({ stored: true })
    })

    it('a result of another size than the job makes (1×1 for an 8×8 job): 422 validation_failed, the job not stored as done', async () => {
      const claim = await claimed(workerKeys.a)
      const part = `${claim.params.variations[0]}.${claim.format}`
      const tiny = await new HandWorker(() => workers.url, workerKeys.a).result(claim.job_id, claim.token, {
        meta: { warnings: {}, ignored: claim.params.variations.slice(1), device: 'cpu', uncertainty: 0.1 },
        files: [{ name: part, bytes: await tinyPng(1, 1) }]
      })
      expect(tiny.status).toBe(422)
      const body = await json(tiny)
      expect(body.error.code).toBe('validation_failed')
      expect(body.error.details).toEqual([{ field: part, issue: '1×1, expected 8×8' }])
      expect(engine.job(claim.job_id)?.status).not.toBe('done')
    })

    it("one worker sending slowly holds only its share: its second result is refused 503, another worker's is stored", async () => {
      const [first, second] = [await claimed(workerKeys.a), await claimed(workerKeys.a)]
      const other = await claimed(workerKeys.b)
      // 900 KB declared and trickled: all of worker a's share (one result, 1 MB).
      const holder = result(first, workerKeys.a, `Content-Length: ${900 * KB}\r\n`, { total: 900 * KB, chunk: 16, everyMs: 100 })
      await waitFor('the holder to hold its reservation', async () => {
        const r = await result(second, workerKeys.a, `Content-Length: ${500 * KB}\r\n`, { total: 0 }).reply
        return r.status === 503 && r.code === 'unavailable'
      })
      const stored = await new HandWorker(() => workers.url, workerKeys.b).result(other.job_id, other.token, {
        meta: { warnings: {}, ignored: other.params.variations.slice(1), device: 'cpu', uncertainty: 0.1 },
        files: [{ name: `${other.params.variations[0]}.${other.format}`, bytes: await tinyPng() }]
      })
      expect(await json(stored)).toEqual({ stored: true })
      const held = await holder.reply
      expect([held.status, held.code]).toEqual([408, 'request_timeout'])
      await stillServing()
    })
  })
})
