/**
 * Studio mode end to end with the real model: `clipdesk serve --queue` (no local worker) on a
 * real Redis and two `clipdesk worker` processes on 127.0.0.1. A worker is SIGKILLed mid-job
 * and Redis is restarted (losing its data) while jobs run: every job still ends `done` with one
 * result set, one charge and no refund, and no temp file is left.
 * (The 60-job, three-worker run of the same scenario is `npm run bench:studio -- --chaos`.)
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../src/main/engine/store/db'
import type { ServeProcess } from './helpers/cli'
import { multipart, tempDir } from './helpers/engine'
import { scenePng } from './helpers/fixtures'
import { json } from './helpers/http'
import {
  REDIS_SERVER,
  createKey,
  startCoordinator,
  startRedis,
  startWorker,
  waitFor,
  type RedisProcess,
  type WorkerProcess,
  stopStudio
} from './helpers/studio'

const JOBS = 4

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
}

describe.skipIf(!REDIS_SERVER)('studio workers', () => {
  const data = tempDir()
  let redis: RedisProcess | undefined
  let serve: ServeProcess | undefined
  const workers: WorkerProcess[] = []

  afterAll(async () => {
    for (const w of workers) w.child.kill('SIGKILL')
    await stopStudio({ serve, redis, data })
  })

  it('finishes every job once through a worker crash and a Redis restart', async () => {
    redis = await startRedis()
    const client = createKey(data, ['--credits', '100'])
    const workerKey = createKey(data, ['--worker'])
    serve = await startCoordinator(data, redis.url)
    const base = `http://127.0.0.1:${serve.port}`
    const status = async (id: string): Promise<Record<string, any>> =>
      json(await fetch(`${base}/api/v1/status?job_id=${id}`, { headers: { 'X-API-Key': client } }))

    const first = await startWorker(redis.url, serve.port, workerKey, 'first')
    workers.push(first)
    const png = await scenePng()
    const ids: string[] = []
    for (let i = 0; i < JOBS; i++) {
      const res = await fetch(`${base}/api/v1/upload`, {
        method: 'POST',
        headers: { 'X-API-Key': client },
        body: multipart({}, { bytes: png, type: 'image/png' })
      })
      expect(res.status).toBe(202)
      ids.push((await json(res)).job_id)
    }
    // The only worker has a job mid-pipeline: kill it there.
    await waitFor('a job to be running', async () => (await Promise.all(ids.map(status))).some((s) => s.status === 'segmenting'), 170_000)
    first.child.kill('SIGKILL')
    expect(await first.exited).toBe('SIGKILL')

    workers.push(await startWorker(redis.url, serve.port, workerKey, 'second'))
    workers.push(await startWorker(redis.url, serve.port, workerKey, 'third'))
    // Once work is under way again, Redis restarts empty; the coordinator offers the jobs again.
    await waitFor('a first job to finish', async () => (await Promise.all(ids.map(status))).some((s) => s.status === 'done'), 170_000)
    await redis.stop()
    await redis.start()

    await waitFor('every job to end', async () => (await Promise.all(ids.map(status))).every((s) => s.state !== 'pending'), 170_000)
    for (const id of ids) {
      const body = await status(id)
      expect(body.status, JSON.stringify(body)).toBe('done')
      const out = Buffer.from(await (await fetch(body.final_url)).arrayBuffer())
      expect((await sharp(out).metadata()).channels).toBe(4)
      expect(readdirSync(join(data, 'results', id))).toEqual(['clipping.png'])
    }
    const db = openDatabase(join(data, 'clipdesk.db'))
    try {
      const rows = db.prepare('SELECT reason, count(*) AS n FROM credit_ledger WHERE job_id IS NOT NULL GROUP BY reason').all() as {
        reason: string
        n: number
      }[]
      expect(Object.fromEntries(rows.map((r) => [r.reason, Number(r.n)]))).toEqual({ charge: JOBS })
      const results = db.prepare('SELECT count(*) AS n FROM results').get() as { n: number }
      expect(Number(results.n)).toBe(JOBS)
      const done = db.prepare('SELECT sum(jobs_done) AS n FROM studio_workers').get() as { n: number }
      expect(Number(done.n)).toBe(JOBS)
    } finally {
      db.close()
    }
    expect(listFiles(data).filter((f) => f.endsWith('.part'))).toEqual([])

    // Workers stop cleanly on SIGTERM.
    for (const w of workers.slice(1)) {
      w.child.kill('SIGTERM')
      expect(await w.exited).toBe(0)
    }
  }, 600_000) // model loads in three processes on two shared cores
})
