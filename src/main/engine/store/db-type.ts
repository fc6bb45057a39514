import type Database from 'libsql'

/**
 * An open SQLite connection, as every store takes it. Its own file, below `db.ts` (which opens one
 * and migrates it) and the migrations and statement cache that `db.ts` uses, so none of them loops back.
 */
export type Db = InstanceType<typeof Database>
