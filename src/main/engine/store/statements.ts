import type Database from 'libsql'
import type { Db } from './db-type'

type Statement = Database.Statement<unknown[]>

const caches = new WeakMap<Db, Map<string, Statement>>()

/**
 * Returns a prepared statement for `sql`, preparing it once per database. Preparing is the
 * most expensive part of a small query in SQLite; the status endpoint runs a few per request.
 */
export function prepared(db: Db, sql: string): Statement {
  let cache = caches.get(db)
  if (!cache) {
    cache = new Map()
    caches.set(db, cache)
  }
  let stmt = cache.get(sql)
  if (!stmt) {
    stmt = db.prepare<unknown[]>(sql)
    cache.set(sql, stmt)
  }
  return stmt
}

/** The first row `sql` finds for `args`, as `to` reads it; null when there is none. */
export function firstRow<Row, T>(db: Db, sql: string, to: (row: Row) => T, ...args: unknown[]): T | null {
  const row = prepared(db, sql).get(...args) as Row | undefined
  return row ? to(row) : null
}
