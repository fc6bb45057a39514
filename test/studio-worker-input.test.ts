/**
 * `clipdesk worker` against a coordinator it cannot trust: a real Redis queue and a real worker
 * process, and a stand-in coordinator (a plain HTTP server in this test, since the point is
 * a coordinator that misbehaves). The worker refuses a coordinator of another protocol at
 * start, with a clear message; it streams each input with a cap and checks it against the
 * claim — more bytes than claimed, other bytes than claimed, or a claim larger than a worker
 * takes fail the job (`storage_error`) without the input ever being held whole.
 */
import { execFile } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Queue } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { STUDIO_PROTOCOL, redisConnection } from '../src/main/studio/protocol'
import { CLI } from './helpers/cli'
import { REDIS_SERVER, startRedis, startWorker, waitFor, type RedisProcess, type WorkerProcess } from './helpers/studio'

const MB = 1024 * 1024

interface StandIn {
  server: Server
  port: number
  /** Bodies of the failure reports received, by job id. */
  failures: Map<string, { reason: string; message: string }>
  /** Bytes of input each job's download was sent before the worker stopped reading. */
  sent: Map<string, number>
}

async function body(req: IncomingMessage): Promise<Record<string, any>> {
  let text = ''
  for await (const c of req) text += c
  return text ? JSON.parse(text) : {}
}

/** A coordinator answering hello as `protocol` does, and claims as `claims` says. */
async function standIn(
  protocol: number | null,
  claims: Map<string, { bytes: number; sha256: string; serve: () => Buffer | number }>
): Promise<StandIn> {
  const failures = new Map<string, { reason: string; message: string }>()
  const sent = new Map<string, number>()
  const server = createServer(async (req, res) => {
    const path = req.url ?? ''
    const reply = (status: number, value: unknown): void => {
      res.writeHead(status, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify(value))
    }
    if (path === '/api/v1/studio/hello') return reply(200, protocol === null ? { ok: true } : { ok: true, protocol })
    if (path === '/api/v1/studio/claim') {
      const { job_id } = await body(req)
      const c = claims.get(job_id)
      if (!c) return reply(200, { job: null })
      return reply(200, {
        job: {
          job_id,
          attempt: 1,
          token: `1.${'t'.repeat(43)}`,
          format: 'png',
          params: { variations: ['clipping'], primary: 'clipping', model: null },
          model: 'medium',
          max_pixels: 100_000_000,
          timeout_ms: 60_000,
          lease_ms: 30_000,
          input: { bytes: c.bytes, sha256: c.sha256 },
          input_url: `/api/v1/studio/input/${job_id}`,
          max_result_bytes: 400 * MB
        }
      })
    }
    if (path.startsWith('/api/v1/studio/input/')) {
      const id = path.slice('/api/v1/studio/input/'.length)
      const what = claims.get(id)!.serve()
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' })
      if (Buffer.isBuffer(what)) {
        sent.set(id, what.length)
        return res.end(what)
      }
      // A stream of `what` bytes, one MB at a time, for as long as the worker reads.
      const chunk = Buffer.alloc(MB, 1)
      let n = 0
      const pump = (): void => {
        while (n < what) {
          n += chunk.length
          sent.set(id, n)
          if (!res.write(chunk)) return void res.once('drain', pump)
        }
        res.end()
      }
      res.on('error', () => undefined)
      return pump()
    }
    if (path === '/api/v1/studio/fail') {
      const b = await body(req)
      failures.set(b.job_id, { reason: b.reason, message: b.message })
      return reply(200, { failed: true })
    }
    await body(req)
    return reply(200, { ok: true })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { server, port: (server.address() as AddressInfo).port, failures, sent }
}

describe.skipIf(!REDIS_SERVER)('clipdesk worker against a coordinator it cannot trust', () => {
  let redis: RedisProcess
  let queue: Queue
  const servers: Server[] = []
  const workers: WorkerProcess[] = []

  beforeAll(async () => {
    redis = await startRedis()
    queue = new Queue('clipdesk-jobs', { connection: redisConnection(redis.url) })
  })
  afterAll(async () => {
    for (const w of workers) {
      w.child.kill('SIGKILL')
      await w.exited
    }
    for (const s of servers) {
      s.closeAllConnections()
      s.close()
    }
    await queue?.close()
    await redis?.stop()
  })

  it('refuses, at start and clearly, a coordinator that speaks another protocol', async () => {
    const old = await standIn(null, new Map())
    servers.push(old.server)
    // Run without blocking this process: the stand-in coordinator answers from it.
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [CLI, 'worker', '--queue', redis.url, '--coordinator', `http://127.0.0.1:${old.port}`, '--key', 'cdk_anything'],
        (err, _out, stderr) => resolve({ code: err ? (err.code as number) : 0, stderr })
      )
    })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(
      `the coordinator speaks studio protocol 1 and this worker ${STUDIO_PROTOCOL}: run the same Clipdesk version on both`
    )
  })

  it('streams each input with a cap and fails a job whose input is not what its claim says', async () => {
    const good = Buffer.from('the claimed input')
    const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex')
    const longer = randomUUID()
    const other = randomUUID()
    const huge = randomUUID()
    const claims = new Map([
      // Claims 17 bytes, then sends 200 MB: the worker stops reading right past the claim.
      [longer, { bytes: good.length, sha256: sha(good), serve: () => 200 * MB }],
      // The right length, other bytes.
      [other, { bytes: good.length, sha256: sha(good), serve: () => Buffer.from('not claimed input') }],
      // More than a worker takes (its cap is the engine's upload limit, 50 MB), whatever is sent.
      [huge, { bytes: 80 * MB, sha256: 'a'.repeat(64), serve: () => 80 * MB }]
    ])
    const fake = await standIn(STUDIO_PROTOCOL, claims)
    servers.push(fake.server)
    workers.push(await startWorker(redis.url, fake.port, 'cdk_anything', 'untrusting'))
    await queue.addBulk([longer, other, huge].map((id) => ({ name: 'job', data: { jobId: id }, opts: { jobId: id } })))
    await waitFor('the three failure reports', () => fake.failures.size === 3, 120_000)
    expect(fake.failures.get(longer)).toEqual({
      reason: 'storage_error',
      message: `The coordinator sent more input than the claim says (${good.length} bytes).`
    })
    expect(fake.failures.get(other)).toEqual({
      reason: 'storage_error',
      message: 'The input received does not match the claim (its size or SHA-256 differs).'
    })
    expect(fake.failures.get(huge)).toEqual({
      reason: 'storage_error',
      message: `The input is ${80 * MB} bytes, more than this worker takes (${50 * MB}).`
    })
    // The worker never downloaded the input it would not take, and cut the longer one off early.
    expect(fake.sent.has(huge)).toBe(false)
    expect(fake.sent.get(longer)!).toBeLessThan(200 * MB)
  }, 180_000)
})
