import Database from 'libsql'
import type { Db } from './db-type'
import { applyMigrations, ENGINE_MIGRATIONS, type Migration } from './migrations'

export type { Db } from './db-type'

/**
 * Opens (or creates) the data folder's SQLite file and brings the engine's tables up to date
 * (each feature brings its own when it opens its store: `applyMigrations`).
 * WAL so that status reads never wait for the queue's writes; synchronous=NORMAL is durable
 * across process crashes (only an OS crash can lose the last transactions).
 */
export function openDatabase(file: string, migrations: readonly Migration[] = ENGINE_MIGRATIONS): Db {
  const db = new Database(file)
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000')
  applyMigrations(db, migrations)
  return db
}
