/**
 * A data folder as a feature or a command sees it when it is not the engine: its database (the
 * engine's migrations applied, for the feature tables beside them), the parameter sets saved
 * there, and who runs an engine on it now. `clipdesk watch add|list|…` edits watched folders
 * with no engine running; the watch service looks presets up in the database it shares with one.
 * Nothing here hands out a store: a lookup function, the lock holder's note, and the `Db` that
 * `feature-tables.ts` is for.
 */
import type { ParamValues } from '../../shared/params'
import { DataPaths } from './paths'
import { openDatabase, type Db } from './store/db'
import { PresetStore } from './store/presets'
import { RunLock, type RunLockHolder } from './store/run-lock'

export { DataDirBusy, type RunLockHolder } from './store/run-lock'

/** A parameter set's values by name (built in or saved in `db`), null when there is none. */
export type PresetLookup = (name: string) => ParamValues | null

/** The parameter sets of the data folder whose database is `db`. */
export function presetLookupIn(db: Db): PresetLookup {
  return new PresetStore(db).lookup
}

export interface OfflineDataFolder {
  db: Db
  presetLookup: PresetLookup
  /** Who runs an engine on the folder now (null: nobody). */
  holder(): RunLockHolder | null
}

/** The data folder `dataDir` opened without an engine (its database created and migrated if new). */
export function openDataFolder(dataDir: string): OfflineDataFolder {
  const db = openDatabase(new DataPaths(dataDir).db)
  return { db, presetLookup: presetLookupIn(db), holder: () => RunLock.holder(dataDir) }
}
