/**
 * A remote worker's models and mask cache. A worker keeps no data folder: its model registry
 * (the built-in models), its one resident session at a time and a small mask cache live in an
 * in-memory store for as long as the process runs (the engine's `StandaloneModels`).
 */
import { StandaloneModels } from '../engine/public-run'

/** The mask cache of a worker is in memory: kept small. */
const MASK_CACHE = { maxEntries: 200, maxBytes: 32 * 1024 * 1024 }

export class WorkerModels extends StandaloneModels {
  constructor(opts: { threads?: number; defaultModel?: string; log?: (message: string) => void }) {
    super({ ...opts, maskCache: MASK_CACHE })
  }
}
