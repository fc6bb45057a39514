import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Db } from './db'
import { firstRow, prepared } from './statements'

export interface ApiKeyInfo {
  id: string
  prefix: string
  name: string | null
  /** Remaining credits; null means unlimited. */
  credits: number | null
  createdAt: number
  revokedAt: number | null
  /** An owner key: may use the app bridge (`/api/app/*`), which manages keys, batches and settings. */
  admin: boolean
  /** `client` keys upload and read status; `worker` keys only take work and return results (studio mode). */
  kind: KeyKind
}

export type KeyKind = 'client' | 'worker'

interface KeyRow {
  id: string
  prefix: string
  hash: string
  name: string | null
  credits: number | null
  created_at: number
  revoked_at: number | null
  admin?: number
  kind?: string
}

const KEY_PREFIX = 'cdk_'

/** Keys are 256-bit random secrets, so a plain SHA-256 is a sufficient one-way hash. */
export function hashKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex')
}

function toInfo(row: KeyRow): ApiKeyInfo {
  return {
    id: row.id,
    prefix: row.prefix,
    name: row.name,
    credits: row.credits === null ? null : Number(row.credits),
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    admin: Number(row.admin ?? 0) === 1,
    kind: row.kind === 'worker' ? 'worker' : 'client'
  }
}

/**
 * API keys and their credit balances. The secret is shown once at creation and stored only
 * as its hash; every balance change is written to the ledger in the same transaction.
 */
export class KeyStore {
  constructor(private readonly db: Db) {}

  create(opts: { credits: number | null; name?: string; admin?: boolean; kind?: KeyKind }): { key: string; info: ApiKeyInfo } {
    const secret = KEY_PREFIX + randomBytes(32).toString('base64url')
    const id = `key_${randomBytes(6).toString('hex')}`
    const now = Date.now()
    this.db.transaction(() => {
      prepared(this.db, 'INSERT INTO api_keys (id, prefix, hash, name, credits, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
        id,
        secret.slice(0, KEY_PREFIX.length + 4),
        hashKey(secret),
        opts.name ?? null,
        opts.credits,
        now
      )
      if (opts.credits !== null && opts.credits > 0) this.ledger(id, null, opts.credits, 'grant')
      if (opts.admin) prepared(this.db, 'UPDATE api_keys SET admin = 1 WHERE id = ?').run(id)
      if (opts.kind === 'worker') prepared(this.db, "UPDATE api_keys SET kind = 'worker' WHERE id = ?").run(id)
    })()
    return { key: secret, info: this.get(id)! }
  }

  get(id: string): ApiKeyInfo | null {
    return firstRow(this.db, 'SELECT * FROM api_keys WHERE id = ?', toInfo, id)
  }

  list(): ApiKeyInfo[] {
    return (prepared(this.db, 'SELECT * FROM api_keys ORDER BY created_at').all() as KeyRow[]).map(toInfo)
  }

  count(): number {
    return Number((prepared(this.db, 'SELECT count(*) AS n FROM api_keys').get() as { n: number }).n)
  }

  /** The active key matching `secret`, or null. The hash lookup is indexed; the final compare is constant-time. */
  authenticate(secret: string): ApiKeyInfo | null {
    const hash = hashKey(secret)
    const row = prepared(this.db, 'SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL').get(hash) as KeyRow | undefined
    if (!row) return null
    const same = timingSafeEqual(Buffer.from(row.hash, 'hex'), Buffer.from(hash, 'hex'))
    return same ? toInfo(row) : null
  }

  revoke(id: string): boolean {
    return prepared(this.db, 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(Date.now(), id).changes > 0
  }

  /** Adds credits (n > 0), or sets unlimited (n = null). */
  credit(id: string, n: number | null): ApiKeyInfo | null {
    this.db.transaction(() => {
      if (n === null) {
        prepared(this.db, 'UPDATE api_keys SET credits = NULL WHERE id = ?').run(id)
      } else {
        const r = prepared(this.db, 'UPDATE api_keys SET credits = credits + ? WHERE id = ? AND credits IS NOT NULL').run(n, id)
        if (r.changes > 0) this.ledger(id, null, n, 'grant')
      }
    })()
    return this.get(id)
  }

  /**
   * Takes `credits` (a whole number ≥ 1) for a job: at acceptance, inside the transaction that
   * inserts the job, so that a job exists exactly when its credits were taken; or later, inside
   * a transaction, for what its output turned out to cost (`output-cost.ts`). The WHERE clause
   * keeps balances >= 0 even under concurrent uploads. Returns false when the balance is too
   * low (nothing is taken); true for an unlimited key, which is never charged.
   */
  charge(keyId: string, jobId: string, credits = 1): boolean {
    const r = prepared(this.db, 'UPDATE api_keys SET credits = credits - ? WHERE id = ? AND credits IS NOT NULL AND credits >= ?').run(
      credits,
      keyId,
      credits
    )
    if (r.changes > 0) {
      this.ledger(keyId, jobId, -credits, 'charge')
      return true
    }
    const row = prepared(this.db, 'SELECT credits FROM api_keys WHERE id = ?').get(keyId) as { credits: number | null } | undefined
    return row !== undefined && row.credits === null
  }

  /** Credits a job holds now: charged and not given back (0 for an unlimited key's job). */
  heldBy(jobId: string): number {
    const row = prepared(
      this.db,
      "SELECT coalesce(sum(delta), 0) AS d FROM credit_ledger WHERE job_id = ? AND reason IN ('charge', 'refund')"
    ).get(jobId) as { d: number }
    return Math.max(0, -Number(row.d))
  }

  /** Gives back every credit a failed job was charged (call inside the transaction that fails it). */
  refund(keyId: string, jobId: string): void {
    const held = this.heldBy(jobId)
    if (held <= 0) return // never charged (unlimited key) or already refunded
    prepared(this.db, 'UPDATE api_keys SET credits = credits + ? WHERE id = ? AND credits IS NOT NULL').run(held, keyId)
    this.ledger(keyId, jobId, held, 'refund')
  }

  private ledger(keyId: string, jobId: string | null, delta: number, reason: 'grant' | 'charge' | 'refund'): void {
    prepared(this.db, 'INSERT INTO credit_ledger (key_id, job_id, delta, reason, at) VALUES (?, ?, ?, ?, ?)').run(
      keyId,
      jobId,
      delta,
      reason,
      Date.now()
    )
  }
}
