/**
 * Schema migrations by name, applied in list order; the `migrations` table records which ran.
 * Named rather than numbered so that features can add theirs independently.
 * Never edit a shipped migration: add a new one at the end of the list.
 */
import core from './schema/001-core'

export interface Migration {
  name: string
  sql: string
}

export const MIGRATIONS: Migration[] = [
  { name: '001-core', sql: core }
]
