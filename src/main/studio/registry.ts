import { EventEmitter } from 'node:events'
import type { Db } from '../engine/store/db'
import { applyMigrations } from '../engine/store/migrations'
import { prepared } from '../engine/store/statements'
import { STUDIO_MIGRATIONS } from './schema/migrations'
import type { WorkerIdentity, WorkerInfo } from './protocol'

interface Row {
  name: string
  device: string
  jobs_done: number
  busy_ms: number
  first_seen: number
  last_seen: number
}

/**
 * Workers the coordinator has seen, with jobs done and busy time (for throughput). Emits
 * `change` whenever a worker is seen or finishes a job (the app's API screen follows it).
 */
export class WorkerRegistry extends EventEmitter<{ change: [] }> {
  constructor(private readonly db: Db) {
    super()
    applyMigrations(db, STUDIO_MIGRATIONS)
  }

  seen(w: WorkerIdentity): void {
    const now = Date.now()
    prepared(
      this.db,
      `INSERT INTO studio_workers (name, device, first_seen, last_seen) VALUES (?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET device = excluded.device, last_seen = excluded.last_seen`
    ).run(w.name.slice(0, 200), w.device.slice(0, 200), now, now)
    this.emit('change')
  }

  finished(w: WorkerIdentity, busyMs: number): void {
    const ms = Number.isFinite(busyMs) && busyMs > 0 ? Math.round(busyMs) : 0
    prepared(this.db, 'UPDATE studio_workers SET jobs_done = jobs_done + 1, busy_ms = busy_ms + ?, last_seen = ? WHERE name = ?').run(
      ms,
      Date.now(),
      w.name.slice(0, 200)
    )
    this.emit('change')
  }

  list(): WorkerInfo[] {
    const rows = prepared(this.db, 'SELECT * FROM studio_workers ORDER BY name').all() as Row[]
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
