/**
 * The data folder's SQLite file, opened on a connection of its own with the project's SQLite
 * client, as another process on the machine could open it. Tests reach the engine through its
 * methods; this is for what no method shows or makes: rows kept only in the file (the credit
 * ledger, a key's stored hash, the mask cache) and states that only a crash or the passing of
 * time leave there (a job still marked running, a job that ended long ago).
 */
import Database from 'libsql'
import { DataPaths } from '../../src/main/engine/paths'
import type { Db } from '../../src/main/engine/store/db'

/** Runs `fn` on the SQLite file of the data folder `dataDir` and closes it; gives what `fn` returns. */
export function withDataFolderDb<T>(dataDir: string, fn: (db: Db) => T): T {
  const db = new Database(new DataPaths(dataDir).db)
  try {
    // The engine may be writing on its own connection: wait for its lock rather than fail.
    db.exec('PRAGMA busy_timeout = 5000')
    return fn(db)
  } finally {
    db.close()
  }
}
