/**
 * `prewarm` starts a process in each of the sandbox's pools before any job, the render pool's
 * included, so the first job's outputs do not wait for a process to start (real processes from
 * the built sandbox entry).
 */
import { afterEach, expect, it } from 'vitest'
import { DecodeSandbox } from './decoder'

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
