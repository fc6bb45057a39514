import Database from 'libsql'
import { MIGRATIONS } from './migrations'

export type Db = InstanceType<typeof Database>

/**
 * Opens (or creates) the engine's SQLite file and brings its schema up to date.
 * WAL so that status reads never wait for the queue's writes; synchronous=NORMAL is durable
 * across process crashes (only an OS crash can lose the last transactions).
 */
export function openDatabase(file: string): Db {
  const db = new Database(file)
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000')
  migrate(db)
  return db
}

function migrate(db: Db): void {
  const row = db.prepare('PRAGMA user_version').get() as { user_version: number }
  const current = Number(row.user_version)
  for (let v = current; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!)
      db.exec(`PRAGMA user_version = ${v + 1}`)
    })()
  }
}
