/**
 * Studio-mode harness: a real `redis-server` on a free loopback port (Debian's; tests skip
 * with a message without it, or fail under CLIPDESK_REQUIRE_REDIS=1 as in CI),
 * `clipdesk serve --queue` and `clipdesk worker` processes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { CLI, runCli, startServe, type ServeProcess } from './cli'
import { requireTool } from './require-tool'
import { waitFor as wait } from './wait'

export const REDIS_SERVER = (() => {
  const r = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' })
  return r.status === 0 ? r.stdout.trim() : null
})()

export const REDIS_MISSING_MESSAGE = 'redis-server is not installed (apt-get install redis-server): studio-mode tests skipped'
// CI (`.ci/run`) sets this: there, a missing Redis fails the studio tests instead of skipping them.
requireTool(REDIS_SERVER !== null, 'CLIPDESK_REQUIRE_REDIS', REDIS_MISSING_MESSAGE)

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
    [CLI, 'worker', '--queue', redisUrl, '--coordinator', `http://127.0.0.1:${coordinatorPort}`, '--key', key, '--name', name, '--lock-ms', '3000', '--threads', '1'],
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

/** `wait.ts`'s wait, with the check first (as these tests call it). */
export function waitFor(check: () => Promise<boolean> | boolean, what = 'condition', timeoutMs = 170_000): Promise<void> {
  return wait(what, check, timeoutMs, 200)
}

/** The port of the workers' listener a coordinator started with `--worker-listen 127.0.0.1:0`. */
export async function workerListenPort(serve: ServeProcess): Promise<number> {
  const pattern = /Workers listening on http:\/\/127\.0\.0\.1:(\d+)/
  await waitFor(() => pattern.test(serve.output()), 'the workers\' listener', 30_000)
  return Number(pattern.exec(serve.output())![1])
}
