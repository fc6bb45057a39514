import { randomBytes } from 'node:crypto'
import type { Db } from './db'
import { prepared } from './statements'

/** A per-installation secret, created on first use (e.g. the key that signs result URLs). */
export function getOrCreateSecret(db: Db, name: string): Buffer {
  const row = prepared(db, 'SELECT value FROM meta WHERE key = ?').get(name) as { value: string } | undefined
  if (row) return Buffer.from(row.value, 'base64')
  const secret = randomBytes(32)
  prepared(db, 'INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run(name, secret.toString('base64'))
  return getOrCreateSecret(db, name)
}
