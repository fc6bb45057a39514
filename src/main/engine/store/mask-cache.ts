/**
 * The mask cache (docs/pipeline.md): the model's raw mask by input content hash + model, so the same
 * photo with another preset or output format does not run the model again (~3 s saved).
 *
 * What is stored is the model's own output before any resizing or refinement (1024², 8-bit,
 * as a greyscale PNG of tens of KB), so one entry serves every parameter set. Bounded by entry
 * count and bytes, least recently used first out; entries unused for the retention time are
 * swept with the jobs (`Engine.sweep`).
 */
import sharp from 'sharp'
import type { Db } from './db'
import { prepared } from './statements'

export interface MaskCacheOptions {
  /** Most entries kept. @default 2000 */
  maxEntries?: number
  /** Most PNG bytes kept. @default 256 MB */
  maxBytes?: number
  /** Clock (tests). @default Date.now */
  now?: () => number
}

/** An 8-bit, 1-channel mask. */
export interface CachedMask {
  data: Buffer
  width: number
  height: number
}

export interface MaskCacheStats {
  entries: number
  bytes: number
}

/** The cache key of an input: the content hash of its bytes. */
export { contentHash as inputHash } from '../content-hash'

export class MaskCache {
  private readonly db: Db
  private readonly maxEntries: number
  private readonly maxBytes: number
  private readonly now: () => number
  /** Masks being computed, so that two jobs of the same photo at once run the model once. */
  private readonly inflight = new Map<string, Promise<CachedMask>>()

  constructor(db: Db, opts: MaskCacheOptions = {}) {
    this.db = db
    this.maxEntries = opts.maxEntries ?? 2000
    this.maxBytes = opts.maxBytes ?? 256 * 1024 * 1024
    this.now = opts.now ?? Date.now
    if (!Number.isSafeInteger(this.maxEntries) || this.maxEntries < 0)
      throw new RangeError(`maxEntries must be a non-negative integer, got ${this.maxEntries}`)
    if (!Number.isSafeInteger(this.maxBytes) || this.maxBytes < 0)
      throw new RangeError(`maxBytes must be a non-negative integer, got ${this.maxBytes}`)
  }

  /** The cached mask, or null. A hit counts as a use (LRU). An unreadable entry is dropped. */
  async get(hash: string, model: string): Promise<CachedMask | null> {
    const row = prepared(this.db, 'SELECT mask FROM mask_cache WHERE input_hash = ? AND model = ?').get(hash, model) as
      | { mask: Buffer }
      | undefined
    if (!row) return null
    try {
      const { data, info } = await sharp(Buffer.from(row.mask)).extractChannel(0).raw().toBuffer({ resolveWithObject: true })
      if (info.channels !== 1 || data.length !== info.width * info.height) throw new Error('not a 1-channel mask')
      prepared(this.db, 'UPDATE mask_cache SET used_at = ? WHERE input_hash = ? AND model = ?').run(this.now(), hash, model)
      return { data, width: info.width, height: info.height }
    } catch {
      prepared(this.db, 'DELETE FROM mask_cache WHERE input_hash = ? AND model = ?').run(hash, model)
      return null
    }
  }

  /** Stores (or replaces) a mask, then evicts the least recently used past the bounds. */
  async put(hash: string, model: string, mask: CachedMask): Promise<void> {
    if (mask.data.length !== mask.width * mask.height)
      throw new RangeError(`mask has ${mask.data.length} bytes, expected ${mask.width}×${mask.height}`)
    const png = await sharp(mask.data, { raw: { width: mask.width, height: mask.height, channels: 1 } })
      .png({ compressionLevel: 6 })
      .toBuffer()
    const now = this.now()
    this.db.transaction(() => {
      prepared(
        this.db,
        `INSERT INTO mask_cache (input_hash, model, mask, bytes, created_at, used_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (input_hash, model) DO UPDATE SET mask = excluded.mask, bytes = excluded.bytes, used_at = excluded.used_at`
      ).run(hash, model, png, png.length, now, now)
      this.evict()
    })()
  }

  /**
   * The cached mask, else `compute()`'s, stored for next time. Concurrent calls for the same
   * key share one computation; if it fails (e.g. its job was cancelled), each waiter computes
   * its own rather than inherit another job's failure.
   */
  async getOrCompute(hash: string, model: string, compute: () => Promise<CachedMask>): Promise<{ mask: CachedMask; hit: boolean }> {
    const key = `${model}\0${hash}`
    for (;;) {
      const running = this.inflight.get(key)
      if (!running) break
      const shared = await running.catch(() => null)
      if (shared) return { mask: shared, hit: true }
      if (this.inflight.get(key) === running) break // it failed: compute our own
    }
    let hit = false
    // Registered before the first await, so a concurrent caller finds it.
    const pending = (async (): Promise<CachedMask> => {
      const cached = await this.get(hash, model)
      if (cached) {
        hit = true
        return cached
      }
      const mask = await compute()
      // The cache is an optimisation: failing to store (disk full, closing) must not fail the job.
      await this.put(hash, model, mask).catch(() => undefined)
      return mask
    })()
    this.inflight.set(key, pending)
    try {
      return { mask: await pending, hit }
    } finally {
      if (this.inflight.get(key) === pending) this.inflight.delete(key)
    }
  }

  /** Deletes entries not used since `before` (ms since the epoch). Returns how many. */
  sweep(before: number): number {
    return Number(prepared(this.db, 'DELETE FROM mask_cache WHERE used_at < ?').run(before).changes)
  }

  stats(): MaskCacheStats {
    const row = prepared(this.db, 'SELECT COUNT(*) AS entries, COALESCE(SUM(bytes), 0) AS bytes FROM mask_cache').get() as MaskCacheStats
    return { entries: Number(row.entries), bytes: Number(row.bytes) }
  }

  /** Keeps the most recently used entries within both bounds. */
  private evict(): void {
    prepared(
      this.db,
      `DELETE FROM mask_cache WHERE rowid IN (
           SELECT rowid FROM (
             SELECT rowid,
                    ROW_NUMBER() OVER (ORDER BY used_at DESC, rowid DESC) AS n,
                    SUM(bytes) OVER (ORDER BY used_at DESC, rowid DESC) AS total
             FROM mask_cache
           ) WHERE n > ? OR total > ?
         )`
    ).run(this.maxEntries, this.maxBytes)
  }
}
