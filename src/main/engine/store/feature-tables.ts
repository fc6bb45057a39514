import type { FeatureTables } from '../feature-tables'
import type { Db } from './db'
import { getOrCreateSecret } from './meta'
import { applyMigrations } from './migrations'
import { prepared } from './statements'

/** The database behind each handle, for the engine's own helpers (a preset lookup) that take one. */
const databases = new WeakMap<FeatureTables, Db>()

/** A feature's handle on the tables it keeps in `db`, the data folder's database. */
export function featureTablesOf(db: Db): FeatureTables {
  const tables: FeatureTables = {
    migrate: (migrations) => applyMigrations(db, migrations),
    statement: (sql) => prepared(db, sql),
    transaction: (fn) => db.transaction(fn)(),
    secret: (name) => getOrCreateSecret(db, name)
  }
  databases.set(tables, db)
  return tables
}

/** The database behind a handle made by `featureTablesOf`. */
export function databaseOf(tables: FeatureTables): Db {
  const db = databases.get(tables)
  if (!db) throw new Error('not a handle made by featureTablesOf')
  return db
}
