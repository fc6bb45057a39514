import { availableParallelism } from 'node:os'
import { cpuProfile } from './segment/session/machine'
import type { Device } from '../../shared/models'

/** Settings of one engine. Every limit (docs/api.md §15) is here, with its default. */
export interface EngineOptions {
  /** Folder holding the database, uploads and results. */
  dataDir: string
  /**
   * Let `file_url` reach private, loopback and link-local addresses.
   * @default false
   */
  allowPrivateNetworkUrls?: boolean
  /**
   * Jobs run at once. The model itself runs one inference at a time; the other jobs decode,
   * refine, compose and encode beside it. @default `defaultConcurrency()`: 2, and more where the
   * model's runs are short (many cores), docs/pipeline.md "Using the cores"
   */
  concurrency?: number
  /** @default 10_000 waiting jobs; more → `unavailable` */
  maxQueuedJobs?: number
  /** Waiting jobs of one API key; more → `rate_limited`, so that other keys still get in. @default a quarter of `maxQueuedJobs` */
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
  /** Inference threads. @default chosen for this machine at the model's first load (`models/tuning.ts`) */
  threads?: number
  /**
   * The model's session is closed after this long unused, giving its memory back; the next job
   * loads it again (a fraction of a second from the machine's optimised copy, plus a slower
   * first run). 0 keeps it while the engine runs. @default 5 minutes
   */
  modelIdleCloseMs?: number
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
  /**
   * What runs this engine (`app`, `serve`, `process`), recorded in the data folder's run lock so
   * that other commands can say who holds the folder (`clipdesk watch list`). @default 'engine'
   */
  role?: string
}

export type ResolvedEngineOptions = Required<Omit<EngineOptions, 'device' | 'log' | 'threads' | 'renderMemoryBytes'>> &
  Pick<EngineOptions, 'device' | 'log' | 'threads' | 'renderMemoryBytes'>

/**
 * Jobs at once where not set: the model runs one photo at a time on the physical cores, and a
 * photo's own work (decode, preprocess, refine, compose, encode: ~0.3–0.6 s of one core for 1–2
 * MP) must be done by the time the model is free again, or the model waits. With 2 jobs one
 * photo's work overlaps the next one's run, enough while a run takes ~1 s (2–4 cores). On 8 and
 * more cores a run takes a fraction of that, so more photos are prepared and finished beside it:
 * one more job per 8 cores, up to 4 (each job in flight holds its decoded photo in memory).
 */
export function defaultConcurrency(cores = cpuProfile().physical ?? availableParallelism()): number {
  return Math.min(4, 2 + Math.floor(cores / 8))
}

/** A decode sandbox process's memory limit: a decoded 100 MP image is 400 MB of RGBA, and libvips needs room around it. */
export function decodeMemoryFor(maxPixels: number): number {
  return Math.max(768 * 2 ** 20, maxPixels * 12)
}

export function resolveOptions(o: EngineOptions): ResolvedEngineOptions {
  return {
    dataDir: o.dataDir,
    allowPrivateNetworkUrls: o.allowPrivateNetworkUrls ?? false,
    concurrency: o.concurrency ?? defaultConcurrency(),
    maxQueuedJobs: o.maxQueuedJobs ?? 10_000,
    maxQueuedJobsPerKey: o.maxQueuedJobsPerKey ?? Math.max(1, Math.floor((o.maxQueuedJobs ?? 10_000) / 4)),
    maxUploadBytes: o.maxUploadBytes ?? 50 * 1024 * 1024,
    maxPixels: o.maxPixels ?? 100_000_000,
    retentionMs: o.retentionMs ?? 24 * 60 * 60 * 1000,
    modelVariant: o.modelVariant ?? 'medium',
    threads: o.threads,
    modelIdleCloseMs: o.modelIdleCloseMs ?? 5 * 60_000,
    maxAttempts: o.maxAttempts ?? 3,
    jobTimeoutMs: o.jobTimeoutMs ?? 10 * 60 * 1000,
    decodeTimeoutMs: o.decodeTimeoutMs ?? 60_000,
    decodeMemoryBytes: o.decodeMemoryBytes ?? decodeMemoryFor(o.maxPixels ?? 100_000_000),
    renderMemoryBytes: o.renderMemoryBytes,
    device: o.device,
    log: o.log,
    role: o.role ?? 'engine'
  }
}
