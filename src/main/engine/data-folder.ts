/**
 * A data folder as a feature or a command sees it when it is not the engine: its database (the
 * engine's migrations applied, for the feature tables beside them), the parameter sets saved
 * there, and who runs an engine on it now. `clipdesk watch add|list|…` edits watched folders
 * with no engine running; the watch service looks presets up in the database it shares with one.
 * Nothing here hands out a store nor the database: a lookup function, the lock holder's note,
 * and the feature tables' handle of `feature-tables.ts`.
 */
import Database from 'libsql'
import { existsSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import type { ParamValues } from '../../shared/params-keys'
import type { PresetInfo } from '../../shared/presets'
import { DataPaths } from './paths'
import type { FeatureTables } from './feature-tables'
import { openDatabase, type Db } from './store/db'
import { databaseOf, featureTablesOf } from './store/feature-tables'
import { PresetStore } from './store/presets'
import { DataDirBusy, RunLock, type RunLockHolder } from './store/run-lock'

export { DataDirBusy, type RunLockHolder } from './store/run-lock'

/** A parameter set's values by name (built in or saved in `db`), null when there is none. */
export type PresetLookup = (name: string) => ParamValues | null

/** The parameter sets of the data folder whose feature tables these are. */
export function presetLookupIn(tables: FeatureTables): PresetLookup {
  return new PresetStore(databaseOf(tables)).lookup
}

export interface OfflineDataFolder {
  /** The feature tables of the folder's database (`feature-tables.ts`). */
  tables: FeatureTables
  presetLookup: PresetLookup
  /** Who runs an engine on the folder now (null: nobody). */
  holder(): RunLockHolder | null
  /** Closes the folder's database. */
  close(): void
}

/** The data folder `dataDir` opened without an engine (its database created and migrated if new). */
export function openDataFolder(dataDir: string): OfflineDataFolder {
  const db = openDatabase(new DataPaths(dataDir).db)
  const tables = featureTablesOf(db)
  return { tables, presetLookup: presetLookupIn(tables), holder: () => RunLock.holder(dataDir), close: () => db.close() }
}

/** Who runs an engine (or holds the folder for a command) on `dataDir` now; null: nobody. */
export function folderHolder(dataDir: string): RunLockHolder | null {
  return RunLock.holder(dataDir)
}

/**
 * Holds the data folder for a process that writes it without running an engine (a paused
 * server, `clipdesk keys|presets|models`): no engine starts on it meanwhile. Throws
 * `DataDirBusy` when another process holds it. `release()` gives it back.
 */
export function holdDataFolder(dataDir: string, role: string): { release(): void } {
  return RunLock.acquire(dataDir, role)
}

/** The presets of a data folder another process owns, read on a read-only connection. */
export interface ReadOnlyPresets {
  lookup: PresetLookup
  list(): PresetInfo[]
  close(): void
}

/**
 * The presets of a data folder whose owner runs in another process, for a command that works
 * through that owner (`clipdesk process` beside a server): the database is opened read-only
 * (SQLite's `mode=ro`, no migration, no checkpoint), so this process never writes it.
 */
export function readOnlyPresets(dataDir: string): ReadOnlyPresets {
  const file = new DataPaths(dataDir).db
  if (!existsSync(file)) throw new DataDirBusy(dataDir, folderHolder(dataDir))
  const db = new Database(`${pathToFileURL(file).href}?mode=ro`) as Db
  db.exec('PRAGMA busy_timeout = 5000')
  const store = new PresetStore(db)
  return { lookup: store.lookup, list: () => store.list(), close: () => db.close() }
}
