/**
 * An idle-connection flood cannot wedge the server: `clipdesk serve` runs as a child under
 * `ulimit -n 1024`, and a flood client, a process of its own with a higher limit
 * (bench/flood-client.mjs), opens 1,100 loopback connections that send nothing and holds what
 * the server leaves open for 25 s while a real job runs. The listener's caps (connection-cap.ts,
 * derived from the file limit) keep the server's descriptors well under it: the running job,
 * an upload sent during the flood and the uploads after it all end done, and nothing restarts.
 */
import { readdirSync, rmSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
// @ts-expect-error: a plain JavaScript module of the benchmarks, without types
import { floodClient } from '../bench/flood-client.mjs'
import { runCli, startServe, type ServeProcess } from './helpers/cli'
import { multipart, tempDir } from './helpers/engine'
import { scenePng } from './helpers/fixtures'
import { json } from './helpers/http'

const FILE_LIMIT = 1024
const CONNECTIONS = 1100
const HOLD_MS = 25_000

const data = tempDir('clipdesk-flood-')
let serve: ServeProcess
let owner: string
let flood: { child: import('node:child_process').ChildProcess; held: Promise<Flood>; done: Promise<Flood> } | null = null

beforeAll(async () => {
  const r = runCli(['keys', 'create', '--admin', '--credits', 'unlimited', '--data-dir', data])
  if (r.code !== 0) throw new Error(r.stderr)
  owner = r.stdout.trim().split('\n').pop()!
  serve = await startServe(data, [], { fileLimit: FILE_LIMIT })
})
afterAll(async () => {
  flood?.child.kill()
  serve?.child.kill('SIGTERM')
  await serve?.exited
  rmSync(data, { recursive: true, force: true })
})

interface Flood {
  phase: string
  attempted: number
  opened: number
  closedByServer: number
  open: number
  mostOpen: number
  errors: Record<string, number>
}

it('1,100 idle connections held for 25 s under ulimit -n 1024 while a job runs: that job, an upload during the flood and the uploads after it end done, with no restart', async () => {
  const base = `http://127.0.0.1:${serve.port}`
  const pid = serve.child.pid!
  const upload = async (): Promise<string> => {
    const res = await fetch(`${base}/api/v1/upload`, {
      method: 'POST',
      headers: { 'X-API-Key': owner },
      body: multipart({}, { bytes: await scenePng(), type: 'image/png' })
    })
    expect(res.status).toBe(202)
    return (await json(res)).job_id as string
  }
  const settled = async (jobId: string): Promise<string> => {
    let status = 'queued'
    await expect
      .poll(
        async () => {
          status = (await json(await fetch(`${base}/api/v1/status?job_id=${jobId}`, { headers: { 'X-API-Key': owner } }))).status
          return ['done', 'failed', 'cancelled'].includes(status)
        },
        { timeout: 180_000, interval: 250 }
      )
      .toBe(true)
    return status
  }

  const running = await upload()
  flood = floodClient(serve.port, CONNECTIONS, HOLD_MS)
  const held = await flood!.held
  // The client reached the server with all of them (its own limit is not the bound here).
  expect(held.opened).toBe(CONNECTIONS)
  expect(held.errors).toEqual({})

  // During the flood: the server answers, its counts within the caps derived from its limit;
  // what it did not keep it closed at once (counted once it has accepted them all).
  const health = async (): Promise<Record<string, any>> => {
    const res = await fetch(`${base}/api/v1/health`)
    expect(res.status).toBe(200)
    const body = await json(res)
    expect([body.status, body.reason]).toEqual(['ok', null])
    expect(body.connections).toMatchObject({ file_limit: FILE_LIMIT, max: FILE_LIMIT / 4, max_idle: FILE_LIMIT / 16 })
    expect(body.connections.open).toBeLessThanOrEqual(body.connections.max)
    expect(body.connections.idle).toBeLessThanOrEqual(body.connections.max_idle)
    return body.connections
  }
  await expect
    .poll(async () => {
      const c = await health()
      return c.evicted + c.refused
    })
    .toBeGreaterThanOrEqual(CONNECTIONS - FILE_LIMIT / 16)
  if (process.platform === 'linux') expect(readdirSync(`/proc/${pid}/fd`).length).toBeLessThan(FILE_LIMIT / 2)
  const during = await upload()

  const done = await flood!.done
  // The flood held no more than the idle cap (those the header deadline then closed too).
  expect(done.open).toBeLessThanOrEqual(FILE_LIMIT / 16)
  expect(done.closedByServer).toBeGreaterThanOrEqual(CONNECTIONS - FILE_LIMIT / 16)
  expect(await settled(running)).toBe('done')
  expect(await settled(during)).toBe('done')

  // After the flood: new uploads end done on the same process.
  const after = [await upload(), await upload()]
  for (const jobId of after) expect(await settled(jobId)).toBe('done')
  const final = await fetch(`${base}/api/v1/health`)
  expect(final.status).toBe(200)
  expect((await json(final)).status).toBe('ok')
  expect(serve.child.exitCode).toBeNull()
  expect(serve.child.pid).toBe(pid)
})
