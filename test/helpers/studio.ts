/**
 * Studio-mode harness: a real `redis-server` on a free loopback port (Debian's; tests skip
 * with a message without it, or fail under CLIPDESK_REQUIRE_REDIS=1 as in CI),
 * `clipdesk serve --queue` and `clipdesk worker` processes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { connect, createServer } from 'node:net'
import { STUDIO_PROTOCOL, WORKER_FEATURES } from '../../src/main/studio/protocol'
import { CLI, runCli, startServe, type ServeProcess } from './cli'
import { requireTool } from './require-tool'
import { waitFor } from './wait'

// The one wait of the tests (helpers/wait.ts), for the studio tests that import it from here.
export { waitFor }

export const REDIS_SERVER = (() => {
  const r = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' })
  return r.status === 0 ? r.stdout.trim() : null
})()

export const REDIS_MISSING_MESSAGE = 'redis-server is not installed (apt-get install redis-server): studio-mode tests skipped'
// CI (`.ci/run`) sets this: there, a missing Redis fails the studio tests instead of skipping them.
requireTool(REDIS_SERVER !== null, 'CLIPDESK_REQUIRE_REDIS', REDIS_MISSING_MESSAGE)
// Said once by each test file that imports this, whose studio tests then skip.
if (!REDIS_SERVER) console.warn(REDIS_MISSING_MESSAGE)

/**
 * Stops what a studio test started, each part when it got that far: the database it opened, the
 * coordinator, Redis, then its data folder.
 */
export async function stopStudio(parts: {
  db?: { close(): void }
  serve?: ServeProcess
  redis?: RedisProcess
  data?: string
}): Promise<void> {
  parts.db?.close()
  parts.serve?.child.kill('SIGTERM')
  await parts.serve?.exited
  await parts.redis?.stop()
  if (parts.data) rmSync(parts.data, { recursive: true, force: true })
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

export interface RedisProcess {
  port: number
  url: string
  /** Stops Redis (its data is lost: no persistence, like a restart of a cache-only Redis). */
  stop(): Promise<void>
  /** Starts it again on the same port. */
  start(): Promise<void>
}

export async function startRedis(): Promise<RedisProcess> {
  if (!REDIS_SERVER) throw new Error(REDIS_MISSING_MESSAGE)
  const port = await freePort()
  let child: ChildProcess | null = null
  const start = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const c = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: ['ignore', 'pipe', 'pipe']
      })
      child = c
      let out = ''
      c.stdout!.on('data', (d: Buffer) => {
        out += d.toString()
        if (out.includes('Ready to accept connections')) resolve()
      })
      c.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${out}`)))
    })
  const stop = async (): Promise<void> => {
    const c = child
    if (!c || c.exitCode !== null) return
    const gone = new Promise((r) => c.once('exit', r))
    c.kill('SIGKILL')
    await gone
  }
  await start()
  return { port, url: `redis://127.0.0.1:${port}`, stop, start }
}

/** `clipdesk serve --queue …` without a local worker (the test's workers do the work). */
export function startCoordinator(dataDir: string, redisUrl: string, extra: string[] = []): Promise<ServeProcess> {
  return startServe(dataDir, ['--queue', redisUrl, '--no-local-worker', '--lock-ms', '3000', ...extra])
}

export function createKey(dataDir: string, args: string[]): string {
  const r = runCli(['keys', 'create', ...args, '--data-dir', dataDir])
  if (r.code !== 0) throw new Error(r.stderr)
  return r.stdout.trim().split('\n').pop()!
}

export interface WorkerProcess {
  child: ChildProcess
  output(): string
  exited: Promise<number | string>
}

/** `clipdesk worker` for the coordinator; resolves once it takes jobs. */
export function startWorker(redisUrl: string, coordinatorPort: number, key: string, name: string): Promise<WorkerProcess> {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'worker',
      '--queue',
      redisUrl,
      '--coordinator',
      `http://127.0.0.1:${coordinatorPort}`,
      '--key',
      key,
      '--name',
      name,
      '--lock-ms',
      '3000',
      '--threads',
      '1'
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] }
  )
  let out = ''
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString()
      if (out.includes('taking jobs')) resolve({ child, output: () => out, exited })
    })
    void exited.then((code) => reject(new Error(`worker exited (${code}):\n${out}`)))
  })
}

/** The port of the workers' listener a coordinator started with `--worker-listen 127.0.0.1:0`. */
export async function workerListenPort(serve: ServeProcess): Promise<number> {
  const pattern = /Workers listening on http:\/\/127\.0\.0\.1:(\d+)/
  await waitFor("the workers' listener", () => pattern.test(serve.output()), 30_000)
  return Number(pattern.exec(serve.output())![1])
}

/** A claim as the coordinator answers it (the fields the tests read). */
export interface HandClaim {
  job_id: string
  attempt: number
  token: string
  format: string
  model: string
  params: { variations: string[]; model: string | null }
  lease_ms: number
  input: { bytes: number; sha256: string }
  input_url: string
}

/** One output part of a result upload: `<variation>.<ext>` and its bytes. */
export interface ResultPart {
  name: string
  bytes: Buffer
}

/**
 * A worker driven by hand, as an attacker holding a worker key would drive the endpoints:
 * every call is a plain fetch with the protocol header, a claim's token only where given.
 */
export class HandWorker {
  constructor(
    readonly base: () => string,
    readonly key: string,
    readonly name = 'hand'
  ) {}

  headers(token?: string, json = true): Record<string, string> {
    return {
      'X-API-Key': this.key,
      'X-Clipdesk-Studio': String(STUDIO_PROTOCOL),
      'X-Clipdesk-Worker': this.name,
      'X-Clipdesk-Device': 'cpu',
      ...(json ? { 'Content-Type': 'application/json' } : {}),
      ...(token !== undefined ? { 'X-Clipdesk-Claim': token } : {})
    }
  }

  post(path: string, body: unknown, token?: string): Promise<Response> {
    return fetch(`${this.base()}/api/v1/studio/${path}`, { method: 'POST', headers: this.headers(token), body: JSON.stringify(body) })
  }

  /** A claim as this version's workers make it: with the features they have (`WORKER_FEATURES`) unless others are given. */
  claim(jobId: string, models?: string[], features: readonly string[] = WORKER_FEATURES): Promise<Response> {
    return this.post('claim', { job_id: jobId, ...(models ? { models } : {}), features })
  }

  /** Claims and returns the claim; throws when the answer is not one. */
  async claimed(jobId: string): Promise<HandClaim> {
    const res = await this.claim(jobId)
    const body = (await res.json()) as { job: HandClaim | null }
    if (res.status !== 200 || !body.job) throw new Error(`claim of ${jobId} answered ${res.status}: ${JSON.stringify(body)}`)
    return body.job
  }

  input(jobId: string, token?: string): Promise<Response> {
    return fetch(`${this.base()}/api/v1/studio/input/${jobId}`, { headers: this.headers(token, false) })
  }

  progress(jobId: string, stage: string, token?: string): Promise<Response> {
    return this.post('progress', { job_id: jobId, stage }, token)
  }

  renew(jobId: string, token?: string): Promise<Response> {
    return this.post('renew', { job_id: jobId }, token)
  }

  fail(jobId: string, reason: string, message: string, token?: string): Promise<Response> {
    return this.post('fail', { job_id: jobId, reason, message }, token)
  }

  /** A result upload: `meta` (an object, a raw string, or left out) and file parts. */
  result(jobId: string, token: string | undefined, parts: { meta?: unknown; files: ResultPart[] }): Promise<Response> {
    const form = new FormData()
    if (parts.meta !== undefined) form.append('meta', typeof parts.meta === 'string' ? parts.meta : JSON.stringify(parts.meta))
    for (const f of parts.files) form.append(f.name, new Blob([f.bytes]), f.name)
    return fetch(`${this.base()}/api/v1/studio/result/${jobId}`, { method: 'POST', headers: this.headers(token, false), body: form })
  }
}

/** Resident memory of a process, from /proc (Linux), in bytes. */
export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) * 1024 : 0
}

/** Commands Redis has processed since it started (`INFO stats`), over a raw socket. */
export function redisCommandCount(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let text = ''
    socket.on('error', reject)
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1')
      const m = /total_commands_processed:(\d+)/.exec(text)
      if (m && text.includes('\r\n', text.indexOf(m[0]))) {
        socket.destroy()
        resolve(Number(m[1]))
      }
    })
    socket.write('INFO stats\r\n')
  })
}

export interface RawAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
  /** Bytes of the body written before the answer came. */
  sent: number
}

/**
 * A POST whose body is written chunk by chunk, as a client that does not stop would, until the
 * server answers or `total` bytes are sent. `declared`: a Content-Length to claim (else chunked).
 * `hold`: after `total` bytes, keep the request open without ending it (resolves `opened`).
 */
export function rawPost(
  url: string,
  headers: Record<string, string>,
  opts: { total: number; declared?: number; head?: Buffer; hold?: boolean }
): { answer: Promise<RawAnswer>; opened: Promise<void>; abort(): void } {
  const u = new URL(url)
  const req = httpRequest({
    host: u.hostname,
    port: u.port,
    path: u.pathname,
    method: 'POST',
    headers: { ...headers, ...(opts.declared !== undefined ? { 'Content-Length': String(opts.declared) } : {}) }
  })
  let sent = 0
  let answered = false
  let open: () => void = () => undefined
  const opened = new Promise<void>((r) => (open = r))
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    req.on('response', (res) => {
      answered = true
      let body = ''
      res.on('data', (d: Buffer) => (body += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, sent }))
      res.on('error', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, sent }))
    })
    req.on('error', (err) => {
      if (!answered) reject(err)
    })
  })
  answer.catch(() => undefined)
  req.flushHeaders() // sent now, even before any body byte
  const chunk = Buffer.alloc(256 * 1024, 0x41)
  const pump = (): void => {
    if (sent === 0 && opts.head) {
      sent += opts.head.length
      req.write(opts.head)
    }
    while (!answered && !req.destroyed && sent < opts.total) {
      const piece = chunk.subarray(0, Math.min(chunk.length, opts.total - sent))
      sent += piece.length
      if (!req.write(piece)) {
        req.once('drain', pump)
        return
      }
    }
    if (sent >= opts.total) {
      if (opts.hold) open()
      else if (!answered) req.end()
    }
  }
  pump()
  return { answer, opened, abort: () => req.destroy() }
}
