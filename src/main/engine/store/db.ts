import Database from 'libsql'
import { MIGRATIONS, type Migration } from './migrations'

export type Db = InstanceType<typeof Database>

/**
 * Opens (or creates) the engine's SQLite file and brings its schema up to date.
 * WAL so that status reads never wait for the queue's writes; synchronous=NORMAL is durable
 * across process crashes (only an OS crash can lose the last transactions).
 */
export function openDatabase(file: string, migrations: Migration[] = MIGRATIONS): Db {
  const db = new Database(file)
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000')
  migrate(db, migrations)
  return db
}

function migrate(db: Db, migrations: Migration[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)')
  const applied = new Set((db.prepare('SELECT name FROM migrations').all() as { name: string }[]).map((r) => r.name))
  for (const m of migrations) {
    if (applied.has(m.name)) continue
    db.transaction(() => {
      db.exec(m.sql)
      db.prepare('INSERT INTO migrations (name, applied_at) VALUES (?, ?)').run(m.name, Date.now())
    })()
  }
}
