/**
 * One running engine per data folder. Two engines on one SQLite file would each take the
 * other's jobs at start (`recover()` puts "running" jobs back in the queue) and each wait for
 * events only the other emits: the app and `clipdesk serve`, or two `clipdesk process` runs,
 * started on the same folder would run jobs twice and leave waiters hanging. `Engine.start()`
 * takes this lock and `stop()` gives it back.
 *
 * The lock is one the kernel keeps: SQLite's own file lock on a small database,
 * `engine.lock.db`, held in exclusive locking mode inside a transaction that stays open for the
 * holder's life. The kernel drops it the moment the holder's process ends (crash, SIGKILL, a
 * zombie not yet reaped), so no lock outlives its process and no process id is ever trusted: an
 * id reused by another program after a reboot holds nothing.
 *
 * `engine.lock` beside it is information only: the holder's pid, start time and role, written
 * once the lock is held, so that a refused process can say who holds the folder. It is read
 * only when the database lock is really held by someone; a file left by a crash, or by an
 * earlier version that used it as the lock, never refuses anyone.
 *
 * A second engine in the same process (tests that simulate a restart) takes the lock over: a
 * process cannot race itself, and POSIX locks belong to the process, so it shares the one
 * connection rather than opening another (closing a second descriptor on the file would drop
 * the process's lock).
 */
import Database from 'libsql'
import { randomUUID } from 'node:crypto'
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join, resolve } from 'node:path'

/** The holder's information (not the lock). */
export const RUN_LOCK_FILE = 'engine.lock'
/** The database whose SQLite lock is the lock. */
export const RUN_LOCK_DB = 'engine.lock.db'
/**
 * How long a start waits for the lock: only as long as another process's `holder()` check
 * (which takes the lock for an instant) may hold it. A real holder keeps it for good.
 */
const ACQUIRE_WAIT_MS = 250

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

/** Another live process holds the data folder. `holder`: what it wrote about itself, when readable. */
export class DataDirBusy extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: RunLockHolder | null
  ) {
    const who = holder ? `another Clipdesk process (pid ${holder.pid}, running since ${holder.since})` : 'another Clipdesk process'
    super(
      `${who} is using the data folder ${dataDir}; ` +
        'stop it first (the app and `clipdesk serve` share this folder), or give this one its own --data-dir'
    )
    this.name = 'DataDirBusy'
  }
}

type Db = InstanceType<typeof Database>

/** The locks this process holds, by lock database path: the connection and the current owner's token. */
const held = new Map<string, { db: Db; content: LockContent }>()

export class RunLock {
  private constructor(
    private readonly dbFile: string,
    private readonly token: string
  ) {}

  /** Takes the folder's lock, or throws `DataDirBusy` when another live process holds it. */
  static acquire(dataDir: string, role = 'engine'): RunLock {
    const dbFile = resolve(dataDir, RUN_LOCK_DB)
    const content: LockContent = { pid: process.pid, host: hostname(), token: randomUUID(), since: new Date().toISOString(), role }
    const own = held.get(dbFile)
    if (own) {
      own.content = content
    } else {
      const db = tryLock(dbFile, ACQUIRE_WAIT_MS)
      if (!db) throw new DataDirBusy(dataDir, readInfo(dataDir))
      held.set(dbFile, { db, content })
    }
    writeInfo(dataDir, content)
    return new RunLock(dbFile, content.token)
  }

  /** The live process holding the folder, or null when none does (whatever files are there). */
  static holder(dataDir: string): RunLockHolder | null {
    const dbFile = resolve(dataDir, RUN_LOCK_DB)
    const own = held.get(dbFile)
    if (own) return holderOf(own.content)
    let probe: Db | null
    try {
      probe = tryLock(dbFile, 0)
    } catch {
      return null // no data folder, or no lock database yet: nobody holds it
    }
    if (probe) {
      probe.close() // free: nobody holds it (the instant it was ours, a start waits for it)
      return null
    }
    // Held for real; what the holder wrote about itself, or a holder known only to be there.
    return readInfo(dataDir) ?? { pid: 0, host: hostname(), since: 'unknown', role: 'engine' }
  }

  /** Gives the lock back, unless another engine of this process has taken it over since. */
  release(): void {
    const own = held.get(this.dbFile)
    if (own?.content.token !== this.token) return
    held.delete(this.dbFile)
    rmSync(join(this.dbFile, '..', RUN_LOCK_FILE), { force: true })
    own.db.close()
  }
}

/**
 * Opens the lock database and takes its exclusive lock; null when another process holds it.
 * `waitMs`: how long SQLite retries a lock that is busy.
 */
function tryLock(dbFile: string, waitMs: number): Db | null {
  let db: Db | null = null
  try {
    db = new Database(dbFile, { timeout: waitMs })
    // Exclusive mode keeps the file lock until the connection closes; the open transaction
    // takes it now (readers included: nobody else can even read the file meanwhile). `exec`,
    // not `pragma()`: a prepared statement left to the collector keeps `close()` from closing.
    db.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE')
    return db
  } catch (err) {
    db?.close()
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return null
    throw err
  }
}

function holderOf(c: LockContent): RunLockHolder {
  return { pid: c.pid, host: c.host, since: c.since, role: c.role }
}

/** Written through a temp name and a rename: a reader never sees half of it. */
function writeInfo(dataDir: string, content: LockContent): void {
  const file = join(dataDir, RUN_LOCK_FILE)
  const temp = `${file}.${content.token}`
  writeFileSync(temp, JSON.stringify(content))
  renameSync(temp, file)
}

function readInfo(dataDir: string): RunLockHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(join(dataDir, RUN_LOCK_FILE), 'utf8')) as Partial<LockContent>
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return null
    return { pid: parsed.pid, host: parsed.host, since: String(parsed.since ?? 'unknown'), role: String(parsed.role ?? 'engine') }
  } catch {
    return null
  }
}
