/**
 * Studio mode and hints: a job that came with a hint is not handed to a remote worker (the hint
 * stays with the coordinator's upload); the worker is told to offer it again later, and the job
 * waits in the queue for the coordinator's own worker. A job without a hint is claimed as usual.
 * Look-again boxes (the field `regions`) are kept the same way.
 * A real coordinator (`clipdesk serve --queue`, no local worker) on a real Redis; the test plays
 * the remote worker.
 */
import { rmSync } from 'node:fs'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServeProcess } from './helpers/cli'
import { tempDir } from './helpers/engine'
import { tinyPng } from './helpers/fixtures'
import { json } from './helpers/http'
import {
  HandWorker,
  REDIS_MISSING_MESSAGE,
  REDIS_SERVER,
  createKey,
  startCoordinator,
  startRedis,
  type RedisProcess
} from './helpers/studio'

if (!REDIS_SERVER) console.warn(REDIS_MISSING_MESSAGE)

describe.skipIf(!REDIS_SERVER)('studio: hinted jobs', () => {
  const data = tempDir()
  let redis: RedisProcess
  let serve: ServeProcess
  let client: string
  let hand: HandWorker
  const base = (): string => `http://127.0.0.1:${serve.port}`

  beforeAll(async () => {
    redis = await startRedis()
    client = createKey(data, ['--credits', 'unlimited'])
    hand = new HandWorker(base, createKey(data, ['--worker', '--name', 'remote']))
    serve = await startCoordinator(data, redis.url)
  })
  afterAll(async () => {
    serve?.child.kill('SIGTERM')
    await serve?.exited
    await redis?.stop()
    rmSync(data, { recursive: true, force: true })
  })

  async function upload(withHint: boolean, regions?: string, side?: number): Promise<string> {
    const form = new FormData()
    form.append('file', new Blob([new Uint8Array(await tinyPng(side ?? 16, side ?? 12))], { type: 'image/png' }), 'a.png')
    if (regions) form.append('regions', regions)
    if (withHint) {
      const hint = await sharp({ create: { width: 16, height: 12, channels: 3, background: '#ffffff' } })
        .png()
        .toBuffer()
      form.append('hint', new Blob([new Uint8Array(hint)], { type: 'image/png' }), 'hint.png')
    }
    const res = await fetch(`${base()}/api/v1/upload`, { method: 'POST', headers: { 'X-API-Key': client }, body: form })
    expect(res.status).toBe(202)
    return (await json(res)).job_id
  }

  it('a remote worker is told to wait for a hinted job, which stays queued; a job without a hint is claimed', async () => {
    const hinted = await upload(true)
    const res = await hand.claim(hinted)
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body).toEqual({ job: null, wait_ms: expect.any(Number) })
    const status = await json(await fetch(`${base()}/api/v1/status?job_id=${hinted}`, { headers: { 'X-API-Key': client } }))
    expect(status.status).toBe('queued')

    const plain = await upload(false)
    const claim = await hand.claimed(plain)
    expect(claim.job_id).toBe(plain)
  })

  it("a job with look-again boxes is kept for the coordinator's own worker too", async () => {
    const boxed = await upload(false, JSON.stringify([{ x: 0, y: 0, width: 16, height: 16 }]), 32)
    expect(await json(await hand.claim(boxed))).toEqual({ job: null, wait_ms: expect.any(Number) })
    const status = await json(await fetch(`${base()}/api/v1/status?job_id=${boxed}`, { headers: { 'X-API-Key': client } }))
    expect(status.status).toBe('queued')
  })
})
