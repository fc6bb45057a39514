/**
 * Schema migrations by name; the `migrations` table records which ran. Each part of the
 * program owns the migrations of its tables and applies them when it opens its store: the
 * engine its own here (jobs, keys, results, presets, masks, models), batches, watched folders
 * and studio mode theirs (`src/main/<feature>/schema/`).
 *
 * Naming: `<NNN>-<what>`, NNN one sequence across every owner, so that a name says when it came.
 * A new migration takes the number after the highest in use anywhere, and a number is never used
 * twice. Names that shipped stay as they are (a data folder records them), two shipped 013s and
 * 012s included. `test/migration-names.test.ts` keeps the rule.
 *
 * Never change what a shipped migration does to a database. Lines that moved from one owner's
 * migration to another's keep working on existing data folders through `alreadyIn`: the new
 * migration is recorded without running where the one that used to hold its lines ran.
 */
import type { Db } from './db-type'
import core from './schema/001-core'
import maskCache from './schema/002-mask-cache'
import presets from './schema/003-presets'
import models from './schema/006-models'
import presetsTitle from './schema/presets-title'
import jobFraming from './schema/job-framing'
import jobUncertainty from './schema/job-uncertainty'
import jobSecondLook from './schema/job-second-look'
import jobsQueuedKey from './schema/jobs-queued-key'
import storePresetNames from './schema/017-store-preset-names'
import jobChecks from './schema/018-job-checks'
import { keysAdmin, keysKind } from './schema/keys-columns'
import { prepared } from './statements'

export interface Migration {
  name: string
  sql: string
  /** A migration whose lines this one took over: where that one ran, this one is only recorded. */
  alreadyIn?: string
}

/** The engine's own, in the order they are applied. */
export const ENGINE_MIGRATIONS: Migration[] = [
  { name: '001-core', sql: core },
  { name: '002-mask-cache', sql: maskCache },
  { name: '003-presets', sql: presets },
  { name: '005-keys-admin', sql: keysAdmin, alreadyIn: '005-batches' },
  { name: '006-models', sql: models },
  { name: '008-keys-kind', sql: keysKind, alreadyIn: '008-studio' },
  { name: '012-presets-title', sql: presetsTitle },
  { name: '012-job-framing', sql: jobFraming },
  { name: '013-job-uncertainty', sql: jobUncertainty },
  { name: '015-jobs-queued-key', sql: jobsQueuedKey },
  { name: '017-store-preset-names', sql: storePresetNames },
  { name: '018-job-checks', sql: jobChecks },
  { name: '020-job-second-look', sql: jobSecondLook }
]

/** Applies the migrations of `list` not yet recorded, in order, each in its own transaction (taken at once: two processes opening one folder apply each migration once). */
export function applyMigrations(db: Db, list: readonly Migration[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)')
  const applied = (): Set<string> => new Set((prepared(db, 'SELECT name FROM migrations').all() as { name: string }[]).map((r) => r.name))
  const recorded = applied()
  if (list.every((m) => recorded.has(m.name))) return
  for (const m of list) {
    db.transaction(() => {
      const done = applied()
      if (done.has(m.name)) return
      if (!(m.alreadyIn && done.has(m.alreadyIn))) db.exec(m.sql)
      prepared(db, 'INSERT INTO migrations (name, applied_at) VALUES (?, ?)').run(m.name, Date.now())
    }).immediate()
  }
}
