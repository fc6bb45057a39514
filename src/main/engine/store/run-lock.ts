/**
 * One running engine per data folder. Two engines on one SQLite file would each take the
 * other's jobs at start (`recover()` puts "running" jobs back in the queue) and each wait for
 * events only the other emits: the app and `clipdesk serve`, or two `clipdesk process` runs,
 * started on the same folder would run jobs twice and leave waiters hanging. `Engine.start()`
 * takes this lock and `stop()` gives it back.
 *
 * The lock is a file created exclusively (`wx`) holding the owner's pid, host and a token. A
 * lock whose owner is gone (killed, crashed: the pid no longer exists on this host) is stale and
 * taken over, so a SIGKILL never leaves the folder locked. A second engine in the same process
 * (tests that simulate a restart) takes the lock over too: a process cannot race itself.
 */
import { randomUUID } from 'node:crypto'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'

export const RUN_LOCK_FILE = 'engine.lock'

interface LockContent {
  pid: number
  host: string
  token: string
  since: string
  /** What runs the engine (`app`, `serve`, `process`…): other commands say who holds the folder. */
  role: string
}

/** The process holding a data folder, as other commands may show it. */
export type RunLockHolder = Pick<LockContent, 'pid' | 'host' | 'since' | 'role'>

/** Another live process holds the data folder. */
export class DataDirBusy extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockContent
  ) {
    super(
      `another Clipdesk process (pid ${holder.pid}, running since ${holder.since}) is using the data folder ${dataDir}; ` +
        'stop it first (the app and `clipdesk serve` share this folder), or give this one its own --data-dir'
    )
    this.name = 'DataDirBusy'
  }
}

export class RunLock {
  private constructor(
    private readonly file: string,
    private readonly token: string
  ) {}

  /** Takes the folder's lock, or throws `DataDirBusy` when a live process on this host holds it. */
  static acquire(dataDir: string, role = 'engine'): RunLock {
    const file = join(dataDir, RUN_LOCK_FILE)
    const content: LockContent = { pid: process.pid, host: hostname(), token: randomUUID(), since: new Date().toISOString(), role }
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        writeFileSync(file, JSON.stringify(content), { flag: 'wx' })
        return new RunLock(file, content.token)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      }
      const holder = readHolder(file)
      if (holder && holderIsLive(holder)) throw new DataDirBusy(dataDir, holder)
      rmSync(file, { force: true }) // stale (or unreadable): its owner is gone
    }
    throw new Error(`cannot take the lock ${file}: it keeps reappearing`)
  }

  /** The live process holding the folder, or null when none does (no lock, or a stale one). */
  static holder(dataDir: string): RunLockHolder | null {
    const holder = readHolder(join(dataDir, RUN_LOCK_FILE))
    if (!holder) return null
    const own = holder.host === hostname() && holder.pid === process.pid
    return own || holderIsLive(holder) ? holder : null
  }

  /** Gives the lock back, unless another engine has taken it over since. */
  release(): void {
    if (readHolder(this.file)?.token === this.token) rmSync(this.file, { force: true })
  }
}

function readHolder(file: string): LockContent | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockContent>
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string' || typeof parsed.token !== 'string') return null
    return { pid: parsed.pid, host: parsed.host, token: parsed.token, since: String(parsed.since ?? 'unknown'), role: String(parsed.role ?? 'engine') }
  } catch {
    return null
  }
}

/**
 * Whether the holder still runs. Only a process on this host can be checked; a lock written on
 * another host (a data folder on a shared drive) is taken for live: two machines must not share
 * one SQLite file (studio mode shares work through Redis instead).
 */
function holderIsLive(holder: LockContent): boolean {
  if (holder.host !== hostname()) return true
  if (holder.pid === process.pid) return false
  try {
    process.kill(holder.pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' // exists, owned by another user
  }
}
