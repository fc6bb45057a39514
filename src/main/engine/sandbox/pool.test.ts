/**
 * A sandbox process that cannot be started never keeps its place in the pool: real processes
 * from the built sandbox entry, a real EMFILE (this process's soft file limit lowered for a
 * moment with util-linux `prlimit`, where there is one), and a `fork` that throws (injected:
 * Node throws from `fork` only for errors a test cannot cause on purpose, such as ENOMEM).
 */
import { execFileSync, fork, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterEach, expect, it } from 'vitest'
import { SandboxStartFailure } from './fork'
import { SandboxPool, type PoolOptions } from './pool'
import { findSandboxScript } from './specs'

let pool: SandboxPool | null = null
afterEach(async () => {
  await pool?.close()
  pool = null
})

const png = (): Promise<Buffer> =>
  sharp({ create: { width: 32, height: 24, channels: 3, background: '#808080' } })
    .png()
    .toBuffer()

const newPool = (opts: Partial<PoolOptions> = {}): SandboxPool => {
  pool = new SandboxPool({ script: findSandboxScript(), memoryBytes: 768 * 2 ** 20, size: 1, ...opts })
  return pool
}

const probe = async (p: SandboxPool, timeoutMs = 15_000): Promise<unknown> =>
  p.run({ op: 'probe', bytes: await png(), maxPixels: 1_000_000 }, { timeoutMs })

/** A `fork` that throws as long as `failing` says so, and forks for real otherwise. */
function throwingFork(failing: () => boolean): typeof fork {
  return ((...args: Parameters<typeof fork>) => {
    if (failing()) throw Object.assign(new Error('spawn ENOMEM'), { code: 'ENOMEM', syscall: 'spawn' })
    return fork(...args)
  }) as typeof fork
}

it('a fork that throws fails its request with the reason (after one more try), frees its place, and the next request gets a process', async () => {
  let failing = true
  const p = newPool({ forkFn: throwingFork(() => failing) })
  const err = await probe(p).catch((e: unknown) => e)
  expect(err).toBeInstanceOf(SandboxStartFailure)
  expect(err).toMatchObject({ reason: 'pipeline_crashed', message: 'a sandbox process could not be started (ENOMEM: not enough memory)' })
  expect(p.pids()).toEqual([])
  expect(p.startProblem()).toContain('ENOMEM')
  failing = false
  expect(await probe(p)).toMatchObject({ width: 32, height: 24 })
  expect(p.pids()).toHaveLength(1)
  expect(p.startProblem()).toBeNull()
})

it('a fork that throws inside the exit handler (a process killed on timeout, a request waiting) is no uncaught exception: the waiting request fails, the pool goes on', async () => {
  let failing = false
  const p = newPool({ forkFn: throwingFork(() => failing) })
  // The first request's process is killed at its time limit; the second waits for a process
  // that the exit handler then tries to start, with a fork that throws.
  const bytes = await png()
  const first = p.run({ op: 'probe', bytes, maxPixels: 1_000_000 }, { timeoutMs: 1 })
  const second = p.run({ op: 'probe', bytes, maxPixels: 1_000_000 }, { timeoutMs: 15_000 })
  second.catch(() => undefined) // looked at below
  failing = true
  await expect(first).rejects.toMatchObject({ reason: 'decode_timeout' })
  await expect(second).rejects.toBeInstanceOf(SandboxStartFailure)
  failing = false
  expect(await probe(p)).toMatchObject({ width: 32, height: 24 })
})

it('a process that exits before it is ready counts as a failed start; the pool tries again later on its own and recovers', async () => {
  let broken = true
  // A script that ends at once, as a process that cannot load would.
  const exits = join(mkdtempSync(join(tmpdir(), 'clipdesk-pool-')), 'exits.mjs')
  writeFileSync(exits, 'process.exit(1)\n')
  const p = newPool({
    forkFn: ((modulePath: string, args: readonly string[], opts: object) =>
      fork(broken ? exits : modulePath, args, opts)) as unknown as typeof fork
  })
  await expect(probe(p)).rejects.toThrow(/could not be started \(it exited while starting, exit code 1\)/)
  expect(p.startProblem()).toMatch(/exited while starting/)
  broken = false
  // No request waits: the pool starts a process on its own after the back-off, and is healthy again.
  await expect.poll(() => p.startProblem(), { timeout: 30_000 }).toBeNull()
  expect(p.pids()).toHaveLength(1)
  expect(await probe(p)).toMatchObject({ width: 32, height: 24 })
})

/** This process's soft file limit (Linux). */
const softFileLimit = (): number => Number(/^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'latin1'))?.[1])

/** util-linux prlimit, which sets another process's limits (this one's, here). */
const prlimit = ((): string | null => {
  if (process.platform !== 'linux') return null
  try {
    execFileSync('prlimit', ['--version'], { stdio: 'ignore' })
    return 'prlimit'
  } catch {
    return null
  }
})()

it.runIf(prlimit !== null)(
  'a real EMFILE (the soft file limit at the descriptors open now): the request fails with it and the pool says why; the limit raised again, the next request works (Linux)',
  async () => {
    const soft = softFileLimit()
    const hard = Number(execFileSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'latin1' }).trim()) || soft
    // Started first, while descriptors are free: it puts the limit back when told on its stdin
    // (a write to a pipe already open needs no new descriptor).
    const restorer = spawn('sh', ['-c', `read line; exec prlimit --pid ${process.pid} --nofile=${soft}:${hard}`], {
      stdio: ['pipe', 'ignore', 'inherit']
    })
    const p = newPool()
    const bytes = await png()
    // One descriptor left free (the listing's own is closed again): a process needs four to start.
    const open = readdirSync('/proc/self/fd').length - 1
    execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${open + 1}:${hard}`], { stdio: 'ignore' })
    let err: unknown
    try {
      err = await p.run({ op: 'probe', bytes, maxPixels: 1_000_000 }, { timeoutMs: 15_000 }).catch((e: unknown) => e)
    } finally {
      restorer.stdin!.end('go\n')
      await new Promise((resolve) => restorer.once('exit', resolve))
    }
    expect(softFileLimit()).toBe(soft)
    expect(err).toBeInstanceOf(SandboxStartFailure)
    expect((err as Error).message).toBe('a sandbox process could not be started (EMFILE: too many open files in this process)')
    expect(p.pids()).toEqual([])
    expect(p.startProblem()).toMatch(/EMFILE/)
    expect(await p.run({ op: 'probe', bytes, maxPixels: 1_000_000 }, { timeoutMs: 15_000 })).toMatchObject({ width: 32, height: 24 })
    expect(p.startProblem()).toBeNull()
  }
)
