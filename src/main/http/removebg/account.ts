/**
 * `GET /v1.0/account` in remove.bg's shape, from the key's own balance, and the rate-limit
 * headers of the compatible endpoint (docs/api.md "remove.bg compatibility").
 */
import type { RemoveBgPort } from '../../engine/ports'

/** The balance as remove.bg's account body. An unlimited key has `total: null` (remove.bg has no such key). */
export function accountBody(engine: RemoveBgPort, keyId: string): unknown {
  const credits = engine.key(keyId)?.credits ?? null
  return {
    data: {
      attributes: {
        credits: { total: credits, subscription: 0, payg: credits, enterprise: 0 },
        // No free preview calls: every call costs what the same `/api/v1` job costs.
        api: { free_calls: 0, sizes: 'all' }
      }
    }
  }
}

/**
 * The key's share of the queue as remove.bg's rate-limit headers: the waiting jobs one key may
 * have (the whole queue for an owner key), what is left of it, and `Reset` now (the share frees
 * as soon as a waiting job starts; there is no time window).
 */
export function rateLimitHeaders(engine: RemoveBgPort, keyId: string): Record<string, string> {
  const admin = engine.key(keyId)?.admin === true
  const limit = admin ? engine.options.maxQueuedJobs : engine.options.maxQueuedJobsPerKey
  const used = admin ? engine.queuedCount() : engine.queuedCountOfKey(keyId)
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, limit - used)),
    'X-RateLimit-Reset': String(Math.floor(Date.now() / 1000))
  }
}
