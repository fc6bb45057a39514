import type Database from 'libsql'
import type { Db } from './db'
import { getOrCreateSecret } from './meta'
import { applyMigrations, type Migration } from './migrations'
import { prepared } from './statements'

export type { Migration } from './migrations'

/** A prepared statement of the data folder's database. */
export type FeatureStatement = Database.Statement<unknown[]>

/** A feature's handle on the tables it keeps in the data folder's database. */
export interface FeatureTables {
  /** Applies the feature's migrations that have not run yet (`store/migrations.ts` keeps the record). */
  migrate(migrations: readonly Migration[]): void
  /** A prepared statement for `sql`, prepared once per database (preparing is the costly part of a small query). */
  statement(sql: string): FeatureStatement
  /** Runs `fn` in one transaction, so that rows written in it are all kept or none is; gives what it returns. */
  transaction<T>(fn: () => T): T
  /** A per-installation secret of this name, made at first use (a signing key). */
  secret(name: string): Buffer
}

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
