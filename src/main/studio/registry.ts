import { EventEmitter } from 'node:events'
import { cleanText } from '../../shared/text'
import type { FeatureTables } from '../engine/feature-tables'
import { STUDIO_MIGRATIONS } from './schema/migrations'
import type { WorkerIdentity, WorkerInfo } from './protocol'

/**
 * Names one worker key may have at once. A worker's default name holds its process id, so a
 * key whose worker restarts gets a new name each time: past the limit, the name seen least
 * recently gives way, and the list stays bounded by keys × this.
 */
export const NAMES_PER_KEY = 8
/** Longest worker name and device kept (longer ones are cut). */
const NAME_CHARS = 64
const DEVICE_CHARS = 32

interface Row {
  name: string
  device: string
  jobs_done: number
  busy_ms: number
  first_seen: number
  last_seen: number
}

/** A worker's name and device as stored and shown: no control characters, bounded. */
export function cleanIdentity(w: WorkerIdentity): WorkerIdentity {
  return { keyId: w.keyId, name: cleanText(w.name, NAME_CHARS) || w.keyId, device: cleanText(w.device, DEVICE_CHARS) || 'cpu' }
}

/**
 * Workers the coordinator has seen, by worker key and name, with jobs done and busy time (for
 * throughput). Busy time is what the coordinator measured itself, from a claim to its stored
 * result; nothing a worker says is counted. Emits `change` whenever a worker is seen or
 * finishes a job (the app's API screen follows it).
 */
export class WorkerRegistry extends EventEmitter<{ change: [] }> {
  constructor(private readonly tables: FeatureTables) {
    super()
    tables.migrate(STUDIO_MIGRATIONS)
  }

  seen(worker: WorkerIdentity): void {
    const w = cleanIdentity(worker)
    const now = Date.now()
    this.tables.transaction(() => {
      this.tables
        .statement(`INSERT INTO studio_workers (key_id, name, device, first_seen, last_seen) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(key_id, name) DO UPDATE SET device = excluded.device, last_seen = excluded.last_seen`)
        .run(w.keyId, w.name, w.device, now, now)
      this.tables
        .statement(`DELETE FROM studio_workers WHERE key_id = ? AND name NOT IN
           (SELECT name FROM studio_workers WHERE key_id = ? ORDER BY last_seen DESC, name LIMIT ?)`)
        .run(w.keyId, w.keyId, NAMES_PER_KEY)
    })
    this.emit('change')
  }

  /** One more job done by `worker`, which held it for `busyMs` (measured by the coordinator). */
  finished(worker: WorkerIdentity, busyMs: number): void {
    const w = cleanIdentity(worker)
    const ms = Number.isFinite(busyMs) && busyMs > 0 ? Math.round(busyMs) : 0
    this.tables
      .statement('UPDATE studio_workers SET jobs_done = jobs_done + 1, busy_ms = busy_ms + ?, last_seen = ? WHERE key_id = ? AND name = ?')
      .run(ms, Date.now(), w.keyId, w.name)
    this.emit('change')
  }

  list(): WorkerInfo[] {
    const rows = this.tables.statement('SELECT * FROM studio_workers ORDER BY name, key_id').all() as Row[]
    return rows.map((r) => {
      const done = Number(r.jobs_done)
      const busy = Number(r.busy_ms)
      return {
        name: r.name,
        device: r.device,
        jobs_done: done,
        busy_ms: busy,
        jobs_per_hour: done > 0 && busy > 0 ? Math.round((done * 3_600_000) / busy) : null,
        first_seen: Number(r.first_seen),
        last_seen: Number(r.last_seen)
      }
    })
  }
}
