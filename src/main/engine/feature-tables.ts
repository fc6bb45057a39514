/**
 * What a feature that keeps tables of its own in the data folder's database uses of it: its
 * migrations (each feature applies its own list, `schema/`), cached statements, transactions and
 * per-installation secrets, through a `FeatureTables` handle (the engine's `featureTables()`, or
 * `openDataFolder(…).tables` with no engine). The database itself never leaves the engine; the
 * engine's own stores live in `store/`, out of the features' reach.
 */
import type Database from 'libsql'
import type { Migration } from './store/migrations'

export type { Migration } from './store/migrations'

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
