/**
 * What the features, the app API, the transports and the commands ask of the engine's stores,
 * as methods named for the need: a key, a job, the counts, the presets, a signed address, a
 * place in the data folder. Callers outside `src/main/engine` reach these through their ports
 * (`ports.ts`: the rows they return are exported there), never the stores, so that a store can change shape without touching them. Each is a thin delegation; a
 * feature's own tables are reached through `featureTables`, never the database itself. The stores
 * themselves are the `Engine`'s (this class only declares what it reads of them), all
 * protected: outside the engine, tests included, they are reached only through these methods.
 */
import { EventEmitter } from 'node:events'
import { join } from 'node:path'
import type { JobStatus, Mode } from '../../shared/api'
import type { ErrorDetail } from '../../shared/errors'
import type { ParamValues } from '../../shared/params-keys'
import type { JobParams } from '../../shared/params-types'
import type { PresetInfo, PresetSaveRequest } from '../../shared/presets'
import type { RuleSet, StoreCheck } from '../../shared/store-rules'
import { checkResultFile } from './checks/job-check'
import type { EngineEvents } from './events'
import type { FeatureTables } from './feature-tables'
import { tempPathFor } from './file-helpers'
import type { DataPaths } from './paths'
import type { ModelPool } from './segment/models/pool'
import type { ModelRegistry } from './segment/models/registry'
import { paramsProblems } from './params/resolve'
import type { DecodedImage, ProbedImage } from './pipeline/decode/decode'
import { ACTIVE_STATUSES } from './job-transitions'
import type { ResultSigner } from './results'
import { HintPreviews } from './run/hint-preview'
import type { DecodeSandbox } from './sandbox/decoder'
import type { PreviewRequest } from './sandbox/protocol'
import type { Db } from './store/db'
import { featureTablesOf } from './store/feature-tables'
import type { JobFraming, JobRecord, JobStore, ResultRecord } from './store/jobs'
import type { JobParamsStore } from './store/job-params'
import type { ApiKeyInfo, KeyKind, KeyStore } from './store/keys'
import type { MaskCache } from './store/mask-cache'
import type { PresetStore } from './store/presets'

export abstract class EngineFacade extends EventEmitter<EngineEvents> {
  protected abstract readonly paths: DataPaths
  protected abstract readonly db: Db
  protected abstract readonly jobs: JobStore
  protected abstract readonly keys: KeyStore
  protected abstract readonly presets: PresetStore
  protected abstract readonly signer: ResultSigner
  protected abstract readonly sandbox: DecodeSandbox
  protected abstract readonly jobParams: JobParamsStore
  protected abstract readonly maskCache: MaskCache
  protected abstract readonly models: ModelRegistry
  protected abstract readonly modelPool: ModelPool

  // ── keys ────────────────────────────────────────────────────────────────────────────────

  /** The key with this id (revoked ones too); null when there is none. */
  key(id: string): ApiKeyInfo | null {
    return this.keys.get(id)
  }

  /** The active key whose secret this is; null when none is. */
  authenticate(secret: string): ApiKeyInfo | null {
    return this.keys.authenticate(secret)
  }

  /** Every key, revoked ones included. */
  keysList(): ApiKeyInfo[] {
    return this.keys.list()
  }

  /** How many keys there are (a server with none makes the owner's first). */
  keyCount(): number {
    return this.keys.count()
  }

  /** Makes a key; its secret is returned once, here, and only its hash is stored. */
  createKey(opts: { credits: number | null; name?: string; admin?: boolean; kind?: KeyKind }): { key: string; info: ApiKeyInfo } {
    return this.keys.create(opts)
  }

  /** Revokes a key; false when no active key has this id. */
  revokeKey(id: string): boolean {
    return this.keys.revoke(id)
  }

  /** Adds `n` credits to a key (null: unlimited); null when there is no such key. */
  creditKey(id: string, n: number | null): ApiKeyInfo | null {
    return this.keys.credit(id, n)
  }

  /** Credits held for a job (charged at upload, kept or refunded when it ends). */
  creditsHeldFor(jobId: string): number {
    return this.keys.heldBy(jobId)
  }

  // ── jobs ────────────────────────────────────────────────────────────────────────────────

  /** The job with this id; null when there is none (or it was swept). */
  job(id: string): JobRecord | null {
    return this.jobs.get(id)
  }

  /** How a done job framed its subject (for before/after views); null when not recorded (a studio worker's job, or an older one). */
  jobFraming(id: string): JobFraming | null {
    return this.jobs.framing(id)
  }

  /** A done job's store checks (the store its preset is named for); null when it was held against none. */
  jobChecks(id: string): StoreCheck[] | null {
    return this.jobs.checks(id)
  }

  /**
   * A done job's main file held against rule sets of the caller's choosing (`--check agency`),
   * its subject where the job's framing put it; decoded in the sandbox. Not stored.
   */
  async checkJobResult(id: string, sets: readonly RuleSet[]): Promise<StoreCheck[]> {
    const results = this.jobs.results(id)
    const primary = this.jobParams.get(id)?.primary
    const file = results.find((r) => r.variation === primary) ?? results[0]
    if (!file) return []
    return checkResultFile(file.path, this.jobs.framing(id), sets, {
      probe: (bytes) => this.sandbox.probe(bytes),
      decode: (bytes) => this.sandbox.decode(bytes)
    })
  }

  /** The newest job submitted under this file name (the upload's `filename`); null when none is. */
  latestJobBySource(filename: string): JobRecord | null {
    return this.jobs.latestBySource(filename)
  }

  /** The files a job made, one per variation and format (empty until it is done). */
  jobResults(id: string): ResultRecord[] {
    return this.jobs.results(id)
  }

  /** The parameter set a job was given, as resolved at its upload; null when there is none (or the job was swept). */
  jobParamSet(id: string): JobParams | null {
    return this.jobParams.get(id)
  }

  /** One key's jobs, newest first, queued before `beforeSeq` (null: from the newest), at most `limit`, each with its cursor. */
  jobsOfKey(keyId: string, beforeSeq: number | null, limit: number): { job: JobRecord; seq: number }[] {
    return this.jobs.pageForKey(keyId, beforeSeq, limit)
  }

  /**
   * How many jobs have this status, of every key (the app's own too); without one, how many
   * jobs there are. Jobs swept after the retention time are not counted.
   */
  jobCount(status?: JobStatus): number {
    return status === undefined ? this.jobs.count() : this.jobs.countByStatus(status)
  }

  /** How many jobs are queued, of every key. */
  queuedCount(): number {
    return this.jobs.countByStatus('queued')
  }

  /** How many of one key's jobs are queued. */
  queuedCountOfKey(keyId: string): number {
    return this.jobs.countQueuedForKey(keyId)
  }

  /** How many jobs are running (any stage past queued, not ended). */
  activeCount(): number {
    return this.jobs.idsByStatus(ACTIVE_STATUSES).length
  }

  // ── presets ─────────────────────────────────────────────────────────────────────────────

  /** Built-in and user presets. */
  presetsList(): PresetInfo[] {
    return this.presets.list()
  }

  /** The preset of this name; null when there is none. */
  preset(name: string): PresetInfo | null {
    return this.presets.get(name)
  }

  /** The values of a preset by name (null: none of this name), for `resolveParams` and planned outputs. */
  readonly presetLookup = (name: string): ParamValues | null => this.presets.lookup(name)

  /** What an upload would refuse in these parameters (each problem naming its field); empty when none. */
  paramsProblems(mode: Mode, params: string | Record<string, unknown> | null): ErrorDetail[] {
    return paramsProblems(this.presets, mode, params)
  }

  /** Saves a user preset (checked: `validation_failed` naming the field). */
  savePreset(request: PresetSaveRequest): PresetInfo {
    return this.presets.save(request)
  }

  /** Deletes a user preset; false when there was none of this name. */
  deletePreset(name: string): boolean {
    return this.presets.delete(name)
  }

  // ── signed addresses ────────────────────────────────────────────────────────────────────

  /** Signs an address for `subject` and `purpose` until `expires` (Unix seconds), with the data folder's secret. */
  signAddress(subject: string, purpose: string, expires: number): string {
    return this.signer.sign(subject, purpose, expires)
  }

  /** Whether `sig` signs this address and it has not expired. */
  verifyAddress(subject: string, purpose: string, expires: number, sig: string): boolean {
    return this.signer.verify(subject, purpose, expires, sig)
  }

  // ── the data folder ─────────────────────────────────────────────────────────────────────

  /** The folder of a job's results. */
  resultDir(jobId: string): string {
    return this.paths.resultDir(jobId)
  }

  /** A path for a temporary file named from `name` in the uploads folder; the next start removes it if a crash leaves it there. */
  scratchPath(name: string): string {
    return tempPathFor(join(this.paths.uploads, name))
  }

  private tables: FeatureTables | null = null

  /**
   * A feature's handle on the tables it keeps in the data folder's database beside the engine's
   * (each applies its own migrations); the database itself stays here.
   */
  featureTables(): FeatureTables {
    this.tables ??= featureTablesOf(this.db)
    return this.tables
  }

  /**
   * Runs `fn` in one transaction of the data folder's database, so that a feature's rows written
   * in it are all kept or none is; gives what `fn` returns.
   */
  inTransaction<T>(fn: () => T): T {
    return this.db.transaction(fn)()
  }

  // ── untrusted images ────────────────────────────────────────────────────────────────────

  /** An image's type and size, read in the decode sandbox (the bytes are untrusted). */
  probeImage(bytes: Buffer): Promise<ProbedImage> {
    return this.sandbox.probe(bytes)
  }

  /** Decodes an image in the decode sandbox (the bytes are untrusted). */
  decodeImage(bytes: Buffer, signal?: AbortSignal): Promise<DecodedImage> {
    return this.sandbox.decode(bytes, signal)
  }

  /** A small preview of an image (or a result), rendered in the decode sandbox (the bytes are untrusted). */
  previewInSandbox(request: PreviewRequest): Promise<Buffer> {
    return this.sandbox.preview(request)
  }

  /**
   * A previewer of hints (strokes, look-again boxes) on jobs' inputs, with the masks the jobs
   * made (the mask cache) and the resident model; each caller keeps its own editing sessions.
   */
  hintPreviews(): HintPreviews {
    return new HintPreviews({
      decode: (bytes) => this.sandbox.decode(bytes),
      decodeHint: (request) => this.sandbox.decodeHint(request),
      maskCache: this.maskCache,
      models: this.models,
      modelPool: this.modelPool
    })
  }

  /** The model a job without one names is run with (the registry's default). */
  defaultModel(): string {
    return this.models.defaultModel()
  }
}
