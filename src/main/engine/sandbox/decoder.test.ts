/**
 * `prewarm` starts a process in each of the sandbox's pools before any job, the render pool's
 * included, so the first job's outputs do not wait for a process to start; processes started
 * ahead of the engine are the ones its pools take (real processes from the built sandbox entry).
 */
import { readdirSync, readFileSync } from 'node:fs'
import sharp from 'sharp'
import { afterEach, expect, it } from 'vitest'
import { resolveOptions } from '../options'
import { DecodeSandbox } from './decoder'
import { startSandboxesAhead } from './specs'

let sandbox: DecodeSandbox | null = null
afterEach(async () => {
  await sandbox?.close()
  sandbox = null
})

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

it('prewarm starts one process for jobs, one for probes and one for rendering, and no more when called again', async () => {
  sandbox = new DecodeSandbox({ maxPixels: 4_000_000, concurrency: 2 })
  expect(sandbox.pids()).toEqual([])
  sandbox.prewarm()
  const pids = sandbox.pids()
  expect(pids).toHaveLength(3)
  expect(new Set(pids).size).toBe(3)
  for (const pid of pids) expect(alive(pid)).toBe(true)
  sandbox.prewarm()
  expect(sandbox.pids()).toEqual(pids)
  await sandbox.close()
  for (const pid of pids) expect(alive(pid)).toBe(false)
  sandbox = null
})

it('the processes started ahead (clipdesk process and serve) are the ones its pools take, when they are started the same way', async () => {
  const before = new Set(childPids())
  startSandboxesAhead()
  const ahead = childPids().filter((p) => !before.has(p))
  expect(ahead).toHaveLength(3)
  // An engine with default settings: the same scripts, memory limits and priorities.
  sandbox = new DecodeSandbox({ maxPixels: resolveOptions({ dataDir: '' }).maxPixels, concurrency: 2 })
  sandbox.prewarm()
  expect(sandbox.pids().sort()).toEqual([...ahead].sort())
  // They serve requests like any other: a probe of a small PNG in the probe pool's process.
  const png = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#808080' } })
    .png()
    .toBuffer()
  expect(await sandbox.probe(png)).toMatchObject({ width: 32, height: 24 })
  await sandbox.close()
  for (const pid of ahead) expect(alive(pid)).toBe(false)
  sandbox = null

  // A sandbox with a lower pixel limit (smaller decode processes) forks its own decode and probe
  // processes; its render pool, started the same way as ever, takes the render process.
  startSandboxesAhead()
  const again = childPids().filter((p) => !before.has(p))
  // The render process is the one started at a lower priority.
  const isRender = (pid: number): boolean => readFileSync(`/proc/${pid}/environ`, 'latin1').includes('CLIPDESK_SANDBOX_NICE=10')
  const render = again.find(isRender)
  const [decodeA, decodeB] = again.filter((p) => !isRender(p))
  sandbox = new DecodeSandbox({ maxPixels: 4_000_000, concurrency: 2 })
  sandbox.prewarm()
  const taken = sandbox.pids()
  expect(taken).toHaveLength(3)
  expect(taken).not.toContain(decodeA)
  expect(taken).not.toContain(decodeB)
  expect(taken).toContain(render)
  for (const pid of [decodeA!, decodeB!]) process.kill(pid, 'SIGKILL')
})

/** This process's children, from /proc (Linux; elsewhere the test has nothing to count). */
function childPids(): number[] {
  const out: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid) out.push(Number(name))
    } catch {
      // gone meanwhile
    }
  }
  return out
}
