import { availableParallelism } from 'node:os'
import type { Device } from '../../shared/models'

/** Settings of one engine. Every limit of SPEC §4 is here, with its default. */
export interface EngineOptions {
  /** Folder holding the database, uploads and results. */
  dataDir: string
  /**
   * Let `file_url` reach private, loopback and link-local addresses.
   * @default false
   */
  allowPrivateNetworkUrls?: boolean
  /**
   * Jobs run at once. The model itself runs one inference at a time; a second job overlaps
   * its decode/encode with the first one's inference.
   * @default 2
   */
  concurrency?: number
  /** @default 10_000 waiting jobs; more → 503 */
  maxQueuedJobs?: number
  /** Waiting jobs of one API key; more → 429, so that other keys still get in. @default a quarter of `maxQueuedJobs` */
  maxQueuedJobsPerKey?: number
  /** @default 50 MB */
  maxUploadBytes?: number
  /** @default 100 megapixels */
  maxPixels?: number
  /** How long results and uploads are kept after a job ends. @default 24 h */
  retentionMs?: number
  /**
   * Model weights: quantised `small` or fp16 `medium`. `medium` is the default because it is
   * both the faster and the better one on CPUs without VNNI (measured: docs/pipeline.md).
   * @default 'medium'
   */
  modelVariant?: 'small' | 'medium'
  /** Inference threads. @default the number of cores */
  threads?: number
  /** Runs a job may start before it is failed as crashing the pipeline. @default 3 */
  maxAttempts?: number
  /** A job still running after this long fails with reason `pipeline_timeout`. @default 10 min */
  jobTimeoutMs?: number
  /**
   * A decode (or SVG render) still running after this long is killed; the job fails with
   * reason `decode_timeout`. @default 60 s
   */
  decodeTimeoutMs?: number
  /**
   * Resident memory a decode sandbox process may use; past it the decode is killed and the job
   * fails with `image_too_large`. @default 12 bytes per allowed pixel, at least 768 MB
   */
  decodeMemoryBytes?: number
  /**
   * Resident memory a sandbox process composing and encoding a job's outputs may use; past it
   * the job fails with `image_too_large`. @default 3 GB (docs/robustness.md)
   */
  renderMemoryBytes?: number
  /** Execution provider for this process, over the stored device setting (`serve --device`). */
  device?: Device
  /** Where engine warnings go (a device that fell back to the CPU). @default console.warn */
  log?: (message: string) => void
}

export type ResolvedEngineOptions = Required<Omit<EngineOptions, 'device' | 'log' | 'renderMemoryBytes'>> & Pick<EngineOptions, 'device' | 'log' | 'renderMemoryBytes'>

export function resolveOptions(o: EngineOptions): ResolvedEngineOptions {
  return {
    dataDir: o.dataDir,
    allowPrivateNetworkUrls: o.allowPrivateNetworkUrls ?? false,
    concurrency: o.concurrency ?? 2,
    maxQueuedJobs: o.maxQueuedJobs ?? 10_000,
    maxQueuedJobsPerKey: o.maxQueuedJobsPerKey ?? Math.max(1, Math.floor((o.maxQueuedJobs ?? 10_000) / 4)),
    maxUploadBytes: o.maxUploadBytes ?? 50 * 1024 * 1024,
    maxPixels: o.maxPixels ?? 100_000_000,
    retentionMs: o.retentionMs ?? 24 * 60 * 60 * 1000,
    modelVariant: o.modelVariant ?? 'medium',
    threads: o.threads ?? availableParallelism(),
    maxAttempts: o.maxAttempts ?? 3,
    jobTimeoutMs: o.jobTimeoutMs ?? 10 * 60 * 1000,
    decodeTimeoutMs: o.decodeTimeoutMs ?? 60_000,
    decodeMemoryBytes: o.decodeMemoryBytes ?? Math.max(768 * 2 ** 20, (o.maxPixels ?? 100_000_000) * 12),
    renderMemoryBytes: o.renderMemoryBytes,
    device: o.device,
    log: o.log
  }
}
