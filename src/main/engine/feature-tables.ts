/**
 * What a feature that keeps tables of its own in the data folder's database uses of it: its
 * migrations (each feature applies its own list, `schema/`), cached statements, transactions and
 * per-installation secrets, through a `FeatureTables` handle (the engine's `featureTables()`, or
 * `openDataFolder(…).tables` with no engine). The database itself never leaves the engine; the
 * engine's own stores live in `store/`, out of the features' reach.
 */
export type { FeatureStatement, FeatureTables, Migration } from './store/feature-tables'
