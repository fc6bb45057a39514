/**
 * A watched folder's recent activity (`watch_events`): what happened to which file, the newest
 * few hundred kept per folder for the folder's card.
 */
import type { WatchActivity, WatchActivityKind } from '../../shared/watch'
import type { FeatureTables } from '../engine/feature-tables'

/** Events kept per folder for "recent activity". */
const EVENTS_KEPT = 200

export class WatchActivityLog {
  constructor(private readonly tables: FeatureTables) {}

  add(folderId: string, kind: WatchActivityKind, relPath: string | null, message: string): void {
    this.tables
      .statement('INSERT INTO watch_events (folder_id, at, kind, rel_path, message) VALUES (?, ?, ?, ?, ?)')
      .run(folderId, Date.now(), kind, relPath, message)
    this.tables
      .statement(
        'DELETE FROM watch_events WHERE folder_id = ? AND id <= (SELECT id FROM watch_events WHERE folder_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)'
      )
      .run(folderId, folderId, EVENTS_KEPT)
  }

  /** Whether the folder's kept activity already says this about `relPath`. */
  has(folderId: string, kind: WatchActivityKind, relPath: string, message: string): boolean {
    return (
      this.tables
        .statement('SELECT 1 FROM watch_events WHERE folder_id = ? AND kind = ? AND rel_path = ? AND message = ? LIMIT 1')
        .get(folderId, kind, relPath, message) !== undefined
    )
  }

  recent(folderId: string, limit = 30): WatchActivity[] {
    return (
      this.tables
        .statement('SELECT id, at, kind, rel_path, message FROM watch_events WHERE folder_id = ? ORDER BY id DESC LIMIT ?')
        .all(folderId, limit) as {
        id: number
        at: number
        kind: WatchActivityKind
        rel_path: string | null
        message: string
      }[]
    ).map((r) => ({ id: Number(r.id), at: Number(r.at), kind: r.kind, rel_path: r.rel_path, message: r.message }))
  }
}
