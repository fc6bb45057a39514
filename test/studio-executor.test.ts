/**
 * One job executor for local and studio jobs, with the real model and a real Redis: a studio
 * job runs the model it names (`model=small`) — on a remote `clipdesk worker` and on the
 * coordinator's own worker — and its status says so; switching the default model while
 * studio mode runs completes, because the coordinator's own worker gives its model session
 * back to the pool after each job (the pool switches models only when no job holds one).
 * A job with a hint or look-again boxes (kept off remote workers) runs on the coordinator's own
 * worker with them.
 */
import { rmSync } from 'node:fs'
import sharp from 'sharp'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli, startServe, type ServeProcess } from './helpers/cli'
import { multipart, tempDir } from './helpers/engine'
import { SCENE, scenePng } from './helpers/fixtures'
import { json } from './helpers/http'
import {
  REDIS_SERVER,
  createKey,
  startCoordinator,
  startRedis,
  startWorker,
  waitFor,
  type RedisProcess,
  type WorkerProcess
} from './helpers/studio'

describe.skipIf(!REDIS_SERVER)('the job executor in studio mode', () => {
  const dirs: string[] = []
  const serves: ServeProcess[] = []
  const workers: WorkerProcess[] = []
  // One Redis per test: every coordinator on a Redis shares its queue.
  const redises: RedisProcess[] = []
  const newRedis = async (): Promise<RedisProcess> => {
    const r = await startRedis()
    redises.push(r)
    return r
  }

  afterAll(async () => {
    for (const w of workers) {
      w.child.kill('SIGTERM')
      await w.exited
    }
    for (const s of serves) {
      s.child.kill('SIGTERM')
      await s.exited
    }
    for (const r of redises) await r.stop()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  const submit = async (serve: ServeProcess, key: string, fields: Record<string, string>): Promise<string> => {
    const res = await fetch(`http://127.0.0.1:${serve.port}/api/v1/upload`, {
      method: 'POST',
      headers: { 'X-API-Key': key },
      body: multipart(fields, { bytes: await scenePng(), type: 'image/png' })
    })
    const body = await json(res)
    expect(res.status, JSON.stringify(body)).toBe(202)
    return body.job_id
  }
  const settled = async (serve: ServeProcess, key: string, id: string): Promise<Record<string, any>> => {
    let body: Record<string, any> = {}
    await waitFor(
      `job ${id} to end`,
      async () => {
        body = await json(await fetch(`http://127.0.0.1:${serve.port}/api/v1/status?job_id=${id}`, { headers: { 'X-API-Key': key } }))
        return body.state !== 'pending'
      },
      280_000
    )
    return body
  }

  it('runs model=small on a remote worker for a job that names it, and the default model for one that does not', async () => {
    const redis = await newRedis()
    const data = tempDir()
    dirs.push(data)
    const client = createKey(data, ['--credits', '10'])
    const workerKey = createKey(data, ['--worker'])
    const serve = await startCoordinator(data, redis.url)
    serves.push(serve)
    workers.push(await startWorker(redis.url, serve.port, workerKey, 'remote'))
    const small = await submit(serve, client, { params: 'model=small' })
    const plain = await submit(serve, client, {})
    const a = await settled(serve, client, small)
    expect(a, JSON.stringify(a)).toMatchObject({ status: 'done', model: 'small', device: 'cpu' })
    const b = await settled(serve, client, plain)
    expect(b, JSON.stringify(b)).toMatchObject({ status: 'done', model: 'medium', device: 'cpu' })
  }, 300_000)

  it("runs model=small on the coordinator's own worker, and a switch of the default model while it runs completes", async () => {
    const redis = await newRedis()
    const data = tempDir()
    dirs.push(data)
    const client = createKey(data, ['--credits', '10'])
    // The coordinator's own worker only (no --no-local-worker): it loads the default model at start.
    const serve = await startServe(data, ['--queue', redis.url, '--lock-ms', '3000'])
    serves.push(serve)
    const first = await settled(serve, client, await submit(serve, client, {}))
    expect(first, JSON.stringify(first)).toMatchObject({ status: 'done', model: 'medium' })
    const named = await settled(serve, client, await submit(serve, client, { params: 'model=small' }))
    expect(named, JSON.stringify(named)).toMatchObject({ status: 'done', model: 'small' })
    // Back to medium by default, then the default switched to small while the coordinator runs:
    // the next job waits for no session that is never given back.
    expect((await settled(serve, client, await submit(serve, client, {}))).model).toBe('medium')
    const switched = runCli(['models', 'default', 'small', '--data-dir', data])
    expect(switched.code, switched.stderr).toBe(0)
    const after = await settled(serve, client, await submit(serve, client, {}))
    expect(after, JSON.stringify(after)).toMatchObject({ status: 'done', model: 'small' })
    // The coordinator's own worker is listed with its jobs, as a remote worker is.
    const listed = runCli(['workers', '--json', '--data-dir', data])
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: expect.stringContaining('(coordinator)'), jobs_done: 4 })])
  }, 300_000)

  it("runs a hinted job and a job with look-again boxes on the coordinator's own worker, with their strokes and boxes", async () => {
    const redis = await newRedis()
    const data = tempDir()
    dirs.push(data)
    const client = createKey(data, ['--credits', '10'])
    const serve = await startServe(data, ['--queue', redis.url, '--lock-ms', '3000'])
    serves.push(serve)
    const alphaOf = async (body: Record<string, any>): Promise<Buffer> => {
      expect(body, JSON.stringify(body)).toMatchObject({ status: 'done' })
      const png = Buffer.from(await (await fetch(body.final_url, { headers: { 'X-API-Key': client } })).arrayBuffer())
      return sharp(png).extractChannel(3).raw().toBuffer()
    }
    const plain = await alphaOf(await settled(serve, client, await submit(serve, client, {})))
    // Remove everywhere: without the hint the ball would be kept.
    const hint = await sharp({ create: { width: SCENE.width, height: SCENE.height, channels: 3, background: '#000000' } })
      .png()
      .toBuffer()
    const form = multipart({}, { bytes: await scenePng(), type: 'image/png' })
    form.append('hint', new Blob([new Uint8Array(hint)], { type: 'image/png' }), 'hint.png')
    const res = await fetch(`http://127.0.0.1:${serve.port}/api/v1/upload`, {
      method: 'POST',
      headers: { 'X-API-Key': client },
      body: form
    })
    expect(res.status).toBe(202)
    const hinted = await alphaOf(await settled(serve, client, (await json(res)).job_id))
    const centre = SCENE.cy * SCENE.width + SCENE.cx
    expect(plain[centre]).toBe(255)
    expect(hinted.findIndex((a) => a !== 0)).toBe(-1)
    // A box: the model looks again at it; outside the box every alpha is the plain job's.
    const box = { x: 20, y: 20, width: 200, height: 160 }
    const looked = await alphaOf(await settled(serve, client, await submit(serve, client, { regions: JSON.stringify([box]) })))
    let outsideSame = true
    for (let y = 0; y < SCENE.height; y++)
      for (let x = 0; x < SCENE.width; x++) {
        const inside = x >= box.x && x < box.x + box.width && y >= box.y && y < box.y + box.height
        if (!inside && looked[y * SCENE.width + x] !== plain[y * SCENE.width + x]) outsideSame = false
      }
    expect(outsideSame).toBe(true)
    const listed = runCli(['workers', '--json', '--data-dir', data])
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: expect.stringContaining('(coordinator)'), jobs_done: 3 })])
  }, 300_000)
})
