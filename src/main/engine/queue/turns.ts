/**
 * Turns between keys in the queue: the next job is the oldest queued job of the key served
 * least recently (a key not served yet first; between those, the oldest job). In arrival
 * order, one key's six box-heavy jobs kept another key's one-credit job waiting for all six;
 * in turns, it waits at most for the jobs already running. Within a key, jobs keep their
 * order. The app's own jobs (batches and watched folders, no key) take turns as one key.
 *
 * Who was served when is kept in memory: after a restart every key starts even, which costs
 * at most one turn each.
 */
import type { JobRecord } from '../store/jobs'

/** Keys remembered; past this, those with nothing queued are forgotten (they start even when they come back). */
const REMEMBERED = 1000

export class KeyTurns {
  private readonly servedAt = new Map<string | null, number>()
  private tick = 0

  /** Of `heads` (each key's oldest queued job, oldest first), the one whose key's turn it is. */
  pick(heads: readonly JobRecord[]): JobRecord | null {
    let best: JobRecord | null = null
    let bestAt = Infinity
    for (const head of heads) {
      const at = this.servedAt.get(head.keyId) ?? -1
      // Strictly less: between equals, the earlier head (older job) wins.
      if (at < bestAt) {
        best = head
        bestAt = at
      }
    }
    if (this.servedAt.size > REMEMBERED) {
      const queued = new Set(heads.map((h) => h.keyId))
      for (const key of this.servedAt.keys()) if (!queued.has(key)) this.servedAt.delete(key)
    }
    return best
  }

  /** Records that `keyId`'s job was claimed now. */
  served(keyId: string | null): void {
    this.servedAt.set(keyId, ++this.tick)
  }
}
