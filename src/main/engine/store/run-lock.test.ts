import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
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

const RUN_LOCK_TS = fileURLToPath(new URL('./run-lock.ts', import.meta.url))

interface Child {
  pid: number
  /** SIGKILL, without waiting for the exit to be reaped (the process may still be a zombie). */
  kill(): void
  exited: Promise<void>
}

/** A real other process; with `lock`, it holds `lock`'s folder through this module until killed. */
function otherProcess(lock?: string): Promise<Child> {
  const script = lock
    ? `import(${JSON.stringify(RUN_LOCK_TS)}).then((m) => { m.RunLock.acquire(${JSON.stringify(lock)}, 'serve'); console.log('held'); setInterval(() => {}, 1000) })`
    : `console.log('held'); setInterval(() => {}, 1000)`
  const child = spawn(process.execPath, ['--experimental-transform-types', '--no-warnings', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const exited = new Promise<void>((done) => child.once('exit', () => done()))
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve({ pid: child.pid!, kill: () => child.kill('SIGKILL'), exited }))
    void exited.then(() => reject(new Error('the other process ended before it held the lock')))
  })
}

const message = (pid: number, since: string, d: string): string =>
  `another Clipdesk process (pid ${pid}, running since ${since}) is using the data folder ${d}; ` +
  'stop it first (the app and `clipdesk serve` share this folder), or give this one its own --data-dir'

function refusal(d: string): DataDirBusy {
  try {
    RunLock.acquire(d)
  } catch (err) {
    expect(err).toBeInstanceOf(DataDirBusy)
    return err as DataDirBusy
  }
  throw new Error('the lock was taken')
}

describe('RunLock', () => {
  it('is taken and given back; the holder is named while it holds the folder', () => {
    const d = dir()
    const lock = RunLock.acquire(d, 'serve')
    const held = JSON.parse(readFileSync(join(d, RUN_LOCK_FILE), 'utf8'))
    expect(held).toMatchObject({ pid: process.pid, host: hostname(), role: 'serve' })
    expect(RunLock.holder(d)).toMatchObject({ pid: process.pid, role: 'serve' })
    lock.release()
    expect(existsSync(join(d, RUN_LOCK_FILE))).toBe(false)
    expect(RunLock.holder(d)).toBeNull()
    RunLock.acquire(d).release()
  })

  it("is not refused by a lock file naming a live foreign process (a crash's lock, an id reused, an earlier version's file)", async () => {
    const d = dir()
    const other = await otherProcess()
    try {
      writeFileSync(
        join(d, RUN_LOCK_FILE),
        JSON.stringify({ pid: other.pid, host: hostname(), token: 't', since: '2026-01-01T00:00:00.000Z', role: 'serve' })
      )
      expect(RunLock.holder(d)).toBeNull()
      const lock = RunLock.acquire(d)
      expect(JSON.parse(readFileSync(join(d, RUN_LOCK_FILE), 'utf8')).pid).toBe(process.pid)
      lock.release()
    } finally {
      other.kill()
      await other.exited
    }
  })

  it('refuses while another live process holds it, naming it; free at once after that process is killed with SIGKILL', async () => {
    const d = dir()
    const other = await otherProcess(d)
    const info = JSON.parse(readFileSync(join(d, RUN_LOCK_FILE), 'utf8')) as { since: string }
    expect(refusal(d).message).toBe(message(other.pid, info.since, d))
    expect(RunLock.holder(d)).toMatchObject({ pid: other.pid, role: 'serve' })
    // Killed, and taken again before this process has reaped it.
    other.kill()
    let lock: RunLock | null = null
    for (let i = 0; i < 50 && !lock; i++) {
      try {
        lock = RunLock.acquire(d)
      } catch (err) {
        // The signal is delivered asynchronously: the kernel may not have ended it yet.
        if (!(err instanceof DataDirBusy)) throw err
        await new Promise((r) => setTimeout(r, 20))
      }
    }
    expect(lock).not.toBeNull()
    expect(JSON.parse(readFileSync(join(d, RUN_LOCK_FILE), 'utf8')).pid).toBe(process.pid)
    lock!.release()
    await other.exited
  })

  it("names no process when the holder's information is missing", async () => {
    const d = dir()
    const other = await otherProcess(d)
    try {
      rmSync(join(d, RUN_LOCK_FILE))
      expect(refusal(d).message).toBe(
        `another Clipdesk process is using the data folder ${d}; ` +
          'stop it first (the app and `clipdesk serve` share this folder), or give this one its own --data-dir'
      )
    } finally {
      other.kill()
      await other.exited
    }
  })

  it('a second engine of this same process takes it over; release leaves a newer owner alone', () => {
    const d = dir()
    const first = RunLock.acquire(d)
    const second = RunLock.acquire(d) // a restart simulated in one process
    first.release()
    expect(RunLock.holder(d)).toMatchObject({ pid: process.pid })
    second.release()
    expect(RunLock.holder(d)).toBeNull()
  })
})
