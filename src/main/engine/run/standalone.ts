/**
 * The models and mask cache of a process that runs jobs without a data folder (a studio
 * worker elsewhere): a registry of the built-in models, one resident session at a time (the
 * engine's `ModelPool`, so a job for another model waits for the running ones and then
 * switches) and a mask cache, all in an in-memory store for as long as the process runs.
 */
import type { ExecutorDeps } from './execute'
import type { DecodeSandbox } from '../sandbox/decoder'
import { openDatabase, type Db } from '../store/db'
import { MaskCache, type MaskCacheOptions } from '../store/mask-cache'
import { ModelPool } from '../segment/models/pool'
import { ModelRegistry } from '../segment/models/registry'

export interface StandaloneModelsOptions {
  threads?: number
  /** The model a job without `model=` runs. @default 'medium' */
  defaultModel?: string
  log?: (message: string) => void
  /** The mask cache's bounds (it is held in memory). */
  maskCache?: Pick<MaskCacheOptions, 'maxEntries' | 'maxBytes'>
}

export class StandaloneModels {
  private readonly db: Db
  readonly registry: ModelRegistry
  readonly pool: ModelPool
  readonly maskCache: MaskCache

  constructor(opts: StandaloneModelsOptions) {
    this.db = openDatabase(':memory:')
    this.registry = new ModelRegistry(this.db, opts.defaultModel ?? 'medium')
    this.pool = new ModelPool(this.registry, { threads: opts.threads, log: opts.log })
    this.maskCache = new MaskCache(this.db, opts.maskCache)
  }

  /** The models this process runs. */
  names(): string[] {
    return this.registry.all().map((m) => m.name)
  }

  /** The executor's model sessions, mask cache, and decoding in `sandbox`. */
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
