import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DataDirBusy, RUN_LOCK_FILE, RunLock } from './run-lock'

const dirs: string[] = []
const dir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'clipdesk-lock-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A real other process that stays alive until killed. */
function otherProcess(): Promise<{ pid: number; kill(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
  return new Promise((resolve) =>
    child.once('spawn', () =>
      resolve({
        pid: child.pid!,
        kill: () => new Promise<void>((done) => (child.once('exit', () => done()), child.kill('SIGKILL')))
      })
    )
  )
}

describe('RunLock', () => {
  it('is taken and given back', () => {
    const d = dir()
    const lock = RunLock.acquire(d)
    const held = JSON.parse(readFileSync(join(d, RUN_LOCK_FILE), 'utf8'))
    expect(held).toMatchObject({ pid: process.pid, host: hostname() })
    lock.release()
    expect(existsSync(join(d, RUN_LOCK_FILE))).toBe(false)
  })

  it('refuses while another live process holds it, and takes it over once that process is killed', async () => {
    const d = dir()
    const other = await otherProcess()
    writeFileSync(join(d, RUN_LOCK_FILE), JSON.stringify({ pid: other.pid, host: hostname(), token: 't', since: '2026-01-01T00:00:00.000Z' }))
    let refused: unknown
    try {
      RunLock.acquire(d)
    } catch (err) {
      refused = err
    }
    expect(refused).toBeInstanceOf(DataDirBusy)
    expect((refused as Error).message).toBe(
      `another Clipdesk process (pid ${other.pid}, running since 2026-01-01T00:00:00.000Z) is using the data folder ${d}; ` +
        'stop it first (the app and `clipdesk serve` share this folder), or give this one its own --data-dir'
    )
    await other.kill()
    const lock = RunLock.acquire(d) // stale now: its owner is gone
    expect(JSON.parse(readFileSync(join(d, RUN_LOCK_FILE), 'utf8')).pid).toBe(process.pid)
    lock.release()
  })

  it('takes over an unreadable lock file, and a lock of this same process; release leaves a newer owner alone', () => {
    const d = dir()
    writeFileSync(join(d, RUN_LOCK_FILE), 'not json')
    const first = RunLock.acquire(d)
    const second = RunLock.acquire(d) // a restart simulated in one process
    first.release()
    expect(existsSync(join(d, RUN_LOCK_FILE))).toBe(true)
    second.release()
    expect(existsSync(join(d, RUN_LOCK_FILE))).toBe(false)
  })

  it('treats a lock written on another host as held (a data folder on a shared drive)', () => {
    const d = dir()
    writeFileSync(join(d, RUN_LOCK_FILE), JSON.stringify({ pid: 1, host: `${hostname()}-elsewhere`, token: 't', since: 'x' }))
    expect(() => RunLock.acquire(d)).toThrow(DataDirBusy)
  })
})
