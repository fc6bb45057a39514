/**
 * What a feature that keeps tables of its own in the data folder's database (the one
 * `EngineFacade.featureDatabase` gives) uses on it: the database's type, its migrations (each
 * feature applies its own list, `schema/`), cached statements, and per-installation secrets.
 * Features use these rather than reaching into `store/`, where the engine's own stores live.
 */
export type { Db } from './store/db'
export { applyMigrations, type Migration } from './store/migrations'
export { getOrCreateSecret } from './store/meta'
export { firstRow, prepared } from './store/statements'
