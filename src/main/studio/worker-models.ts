/**
 * A remote worker's models and mask cache. A worker keeps no data folder: its model registry
 * (the built-in models), its one resident session at a time (the engine's `ModelPool`, so a
 * job for another model waits for the running ones and then switches) and a small mask cache
 * live in an in-memory store for as long as the process runs.
 */
import { ModelPool } from '../engine/models/pool'
import { ModelRegistry } from '../engine/models/registry'
import type { ExecutorDeps } from '../engine/run/execute'
import type { DecodeSandbox } from '../engine/sandbox/decoder'
import { openDatabase, type Db } from '../engine/store/db'
import { MaskCache } from '../engine/store/mask-cache'

/** The mask cache of a worker is in memory: kept small. */
const MASK_CACHE = { maxEntries: 200, maxBytes: 32 * 1024 * 1024 }

export class WorkerModels {
  private readonly db: Db
  readonly registry: ModelRegistry
  readonly pool: ModelPool
  readonly maskCache: MaskCache

  constructor(opts: { threads?: number; defaultModel?: string; log?: (message: string) => void }) {
    this.db = openDatabase(':memory:')
    this.registry = new ModelRegistry(this.db, opts.defaultModel ?? 'medium')
    this.pool = new ModelPool(this.registry, { threads: opts.threads, log: opts.log })
    this.maskCache = new MaskCache(this.db, MASK_CACHE)
  }

  /** The models this worker runs (a claim for another is left to workers that have it). */
  names(): string[] {
    return this.registry.all().map((m) => m.name)
  }

  deps(sandbox: DecodeSandbox): ExecutorDeps {
    return {
      segmenter: (model) => this.pool.acquire(model),
      releaseSegmenter: (s) => this.pool.release(s),
      decode: (bytes, _maxPixels, signal) => sandbox.decode(bytes, signal),
      toNative: (rgba, width, height, target, signal) => sandbox.toNative(rgba, width, height, target, signal),
      maskCache: this.maskCache
    }
  }

  async close(): Promise<void> {
    await this.pool.close()
    this.db.close()
  }
}
