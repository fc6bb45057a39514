/**
 * The ports of the engine: what each feature, the app API, each transport and each command may
 * ask of it, as small interfaces. Nobody outside `src/main/engine` takes the concrete `Engine`
 * but the places that make one (composition, `createStudioEngine`, the commands that open a data
 * folder); everyone else takes the port named for it below, so that a consumer's needs are read
 * in one line and the engine can change behind them. `Engine` satisfies every port structurally
 * (`engine.ts` says so with `implements`).
 *
 * The capabilities come first (each a few methods of one concern); the consumers' ports are
 * picks of them. A new need is a method added to the pick of its consumer, not the whole engine.
 */
import type { EventEmitter } from 'node:events'
import type { JobStatus, JobStatusBody, Mode, UploadAccepted, Variation } from '../../shared/api'
import type { ErrorDetail } from '../../shared/errors'
import type { ParamValues } from '../../shared/params-keys'
import type { JobParams } from '../../shared/params-types'
import type { PresetInfo, PresetSaveRequest } from '../../shared/presets'
import type { RuleSet, StoreCheck } from '../../shared/store-rules'
import type { EngineEvents } from './events'
import type { FeatureTables } from './feature-tables'
import type { HealthBody } from './health'
import type { UploadInput } from './intake/upload'
import type { ModelService } from './segment/models/service'
import type { ResolvedEngineOptions } from './options'
import type { DecodedImage, ProbedImage } from './pipeline/decode/decode'
import type { Dispatcher } from './queue/dispatcher'
import type { DispatchAccess } from './run/dispatch-access'
import type { HintPreviews } from './run/hint-preview'
import type { PreviewRequest } from './sandbox/protocol'
import type { ResultAddress } from './status-view'
import type { JobFraming, JobRecord, ResultRecord } from './store/jobs'
import type { ApiKeyInfo, KeyKind } from './store/keys'

/** The rows the ports return. */
export type { JobFraming, JobRecord, ResultRecord } from './store/jobs'
export type { ApiKeyInfo, KeyKind } from './store/keys'

// ── capabilities ──────────────────────────────────────────────────────────────────────────

/** Those of the engine's resolved settings (limits, the data folder, concurrency) a consumer reads, read-only. */
export interface SettingsPort<K extends keyof ResolvedEngineOptions = keyof ResolvedEngineOptions> {
  readonly options: Readonly<Pick<ResolvedEngineOptions, K>>
}

/** The engine's `job` event: a job's status or progress changed. */
export type JobEventsPort = Pick<EventEmitter<EngineEvents>, 'on' | 'off'>

/** A job in and out: admit a key, take an upload, its status, a result file, cancel, refuse a result. */
export interface JobIntakePort {
  admit(keyId: string | null): void
  upload(input: UploadInput): Promise<UploadAccepted>
  status(jobId: unknown, address: ResultAddress): JobStatusBody
  result(jobId: string, variation: Variation, ext: string): ResultRecord | null
  cancel(jobId: string): boolean
  refuseResult(jobId: string, message: string): boolean
  health(): HealthBody
}

/** Reading jobs: one, its results, framing, checks and parameter set, a page of a key's, the counts. */
export interface JobReadPort {
  job(id: string): JobRecord | null
  jobFraming(id: string): JobFraming | null
  jobChecks(id: string): StoreCheck[] | null
  checkJobResult(id: string, sets: readonly RuleSet[]): Promise<StoreCheck[]>
  latestJobBySource(filename: string): JobRecord | null
  jobResults(id: string): ResultRecord[]
  jobParamSet(id: string): JobParams | null
  jobsOfKey(keyId: string, beforeSeq: number | null, limit: number): { job: JobRecord; seq: number }[]
  jobCount(status?: JobStatus): number
  queuedCount(): number
  queuedCountOfKey(keyId: string): number
  activeCount(): number
  creditsHeldFor(jobId: string): number
}

/** API keys and their credits. */
export interface KeysPort {
  key(id: string): ApiKeyInfo | null
  authenticate(secret: string): ApiKeyInfo | null
  keysList(): ApiKeyInfo[]
  keyCount(): number
  createKey(opts: { credits: number | null; name?: string; admin?: boolean; kind?: KeyKind }): { key: string; info: ApiKeyInfo }
  revokeKey(id: string): boolean
  creditKey(id: string, n: number | null): ApiKeyInfo | null
}

/** Presets and a request's parameter problems. */
export interface PresetsPort {
  presetsList(): PresetInfo[]
  preset(name: string): PresetInfo | null
  readonly presetLookup: (name: string) => ParamValues | null
  paramsProblems(mode: Mode, params: string | Record<string, unknown> | null): ErrorDetail[]
  savePreset(request: PresetSaveRequest): PresetInfo
  deletePreset(name: string): boolean
}

/** Addresses signed with the data folder's secret. */
export interface SignedAddressPort {
  signAddress(subject: string, purpose: string, expires: number): string
  verifyAddress(subject: string, purpose: string, expires: number, sig: string): boolean
}

/** Untrusted images, handled in the decode sandbox. */
export interface SandboxPort {
  probeImage(bytes: Buffer): Promise<ProbedImage>
  decodeImage(bytes: Buffer, signal?: AbortSignal): Promise<DecodedImage>
  previewInSandbox(request: PreviewRequest): Promise<Buffer>
}

/** Places in the data folder, and the tables a feature keeps in its database (never the database itself). */
export interface DataFolderPort {
  resultDir(jobId: string): string
  scratchPath(name: string): string
  featureTables(): FeatureTables
  inTransaction<T>(fn: () => T): T
}

/** Models: the service (list, add, remove, default, device, test run), the default, hint previews. */
export interface ModelsPort {
  readonly modelService: ModelService
  defaultModel(): string
  hintPreviews(): HintPreviews
}

/** Starting and stopping the engine (whoever made it). */
export interface LifecyclePort {
  start(): void
  stop(): Promise<void>
  warmUp(): Promise<{ model: string; device: string; warning: string | null }>
}

// ── the consumers' ports ──────────────────────────────────────────────────────────────────

/** `http/listen.ts` `keyCheck`: a key by its secret. */
export type KeyCheckPort = Pick<KeysPort, 'authenticate'>

/** `/api/v1` itself (`http/api-routes.ts`): upload, status, results, health. */
export type ApiRoutesPort = SettingsPort<'maxUploadBytes'> &
  Pick<JobIntakePort, 'admit' | 'upload' | 'status' | 'result' | 'health'> &
  SignedAddressPort

/** A key's jobs (`http/jobs-routes.ts`): its page of jobs, one of them, cancel. */
export type JobsRoutesPort = Pick<JobReadPort, 'job' | 'jobsOfKey'> & Pick<JobIntakePort, 'cancel'>

/** Waiting for a job's end while its client waits (`http/removebg/wait.ts`). */
export type JobWaitPort = JobEventsPort & Pick<JobReadPort, 'job'> & Pick<JobIntakePort, 'cancel'>

/** remove.bg's API (`http/removebg/`): one upload, its wait and answer, the account and rate headers. */
export type RemoveBgPort = SettingsPort<'maxUploadBytes' | 'maxQueuedJobs' | 'maxQueuedJobsPerKey' | 'allowPrivateNetworkUrls'> &
  JobWaitPort &
  Pick<JobIntakePort, 'admit' | 'upload' | 'result' | 'refuseResult'> &
  Pick<JobReadPort, 'creditsHeldFor' | 'queuedCount' | 'queuedCountOfKey'> &
  Pick<KeysPort, 'key'> &
  Pick<SandboxPort, 'probeImage' | 'decodeImage'> &
  Pick<DataFolderPort, 'scratchPath'>

/** The studio protocol's routes (`http/studio-routes.ts`): an owner key, the results' folder, the sandbox's checks. */
export type StudioRoutesPort = Pick<KeysPort, 'key'> &
  Pick<SandboxPort, 'probeImage' | 'previewInSandbox'> &
  Pick<DataFolderPort, 'resultDir'>

/** The app bridge and its downloads (`http/app-bridge.ts`, `http/app-downloads.ts`): signed addresses. */
export type AppBridgePort = SettingsPort<'retentionMs'> & SignedAddressPort

/** The API's listener (`http/server.ts`): every route group it serves. */
export type HttpServerPort = KeyCheckPort & ApiRoutesPort & JobsRoutesPort & RemoveBgPort & StudioRoutesPort & AppBridgePort

/** The workers' listener (`http/worker-listener.ts`). */
export type WorkerListenerPort = KeyCheckPort & StudioRoutesPort

/** The `clipdesk-result:` protocol (`ipc/electron-ipc.ts`): a result file. */
export type ResultFilesPort = Pick<JobIntakePort, 'result'>

/** A job's status body (`app-api/answers.ts` `statusAnswer`). */
export type StatusPort = Pick<JobIntakePort, 'status'>

/** Handing a file to the engine (`outputs/engine-jobs.ts` `submitFile`). */
export type SubmitPort = Pick<JobIntakePort, 'upload'>

/** How a job ended (`outputs/engine-jobs.ts` `jobOutcome`). */
export type OutcomePort = Pick<JobReadPort, 'job' | 'jobResults' | 'jobParamSet'>

/** Waiting for jobs' ends (`outputs/engine-jobs.ts` `onJobEnd`, `JobEnds`). */
export type JobEndsPort = JobEventsPort & Pick<JobReadPort, 'job'>

/** The whole of `outputs/engine-jobs.ts`: submit, outcome, ends. */
export type EngineJobsPort = SubmitPort & OutcomePort & JobEndsPort

/** A watched folder's processor (`watch/processor.ts` `engineProcessor`). */
export type WatchEnginePort = SettingsPort<'maxUploadBytes'> &
  EngineJobsPort &
  Pick<JobReadPort, 'latestJobBySource'> &
  Pick<JobIntakePort, 'cancel'>

/** A touch-up's preview and Save (`touchup/touchups.ts`). */
export type TouchUpPort = EngineJobsPort & Pick<ModelsPort, 'defaultModel' | 'hintPreviews'>

/** Batches (`batches/`): submit and follow jobs, their framing and checks, previews, its tables. */
export type BatchesPort = SettingsPort<'concurrency' | 'dataDir'> &
  EngineJobsPort &
  Pick<JobIntakePort, 'cancel'> &
  Pick<JobReadPort, 'jobFraming' | 'jobChecks'> &
  Pick<PresetsPort, 'paramsProblems' | 'presetLookup'> &
  Pick<SandboxPort, 'previewInSandbox'> &
  Pick<DataFolderPort, 'featureTables' | 'inTransaction'>

/** The studio's coordinator (`studio/coordinator.ts`), beside the `DispatchAccess` the engine gives it. */
export type StudioCoordinatorPort = SettingsPort<'maxUploadBytes'> & Pick<JobReadPort, 'job'> & Pick<DataFolderPort, 'featureTables'>

/** The app's presets methods (`app-api/presets.ts`). */
export type PresetHandlersPort = Pick<PresetsPort, 'presetsList' | 'savePreset' | 'deletePreset'>

/** The app's models methods (`app-api/models.ts`). */
export type ModelHandlersPort = SettingsPort<'dataDir'> & Pick<ModelsPort, 'modelService'>

/** The app API (`app-api/`): the engine's methods, keys, touch-ups, events. */
export type AppApiPort = SettingsPort<'concurrency'> &
  ApiRoutesPort &
  TouchUpPort &
  PresetHandlersPort &
  ModelHandlersPort &
  Pick<JobIntakePort, 'cancel'> &
  Pick<KeysPort, 'key' | 'keysList' | 'createKey' | 'revokeKey' | 'creditKey'>

/** `clipdesk process` running its own engine (`cli/process-backend.ts`). */
export type ProcessEnginePort = SettingsPort<'concurrency'> &
  LifecyclePort &
  EngineJobsPort &
  Pick<JobIntakePort, 'cancel' | 'status'> &
  Pick<JobReadPort, 'jobChecks' | 'checkJobResult'> &
  Pick<PresetsPort, 'presetsList' | 'presetLookup'>

/** `clipdesk keys` on an engine of its own (`cli/keys.ts`). */
export type KeysCommandPort = Pick<KeysPort, 'keysList' | 'createKey' | 'revokeKey' | 'creditKey'>

/** `clipdesk presets` on an engine of its own (`cli/presets.ts`). */
export type PresetsCommandPort = Pick<PresetsPort, 'presetsList' | 'preset' | 'savePreset' | 'deletePreset'>

/** `clipdesk models` on an engine of its own (`cli/models.ts`). */
export type ModelsCommandPort = Pick<ModelsPort, 'modelService'>

/** `clipdesk workers` on an engine of its own (`cli/workers.ts`): the studio's tables. */
export type WorkersCommandPort = Pick<DataFolderPort, 'featureTables'>

/**
 * What composition (`compose-services.ts`) hands the services it makes and the hosts (`index.ts`,
 * `clipdesk serve`): every consumer's port, the lifecycle, the tray's counts and the first key.
 */
export type ComposedEnginePort = SettingsPort<'dataDir' | 'role'> &
  LifecyclePort &
  HttpServerPort &
  AppApiPort &
  BatchesPort &
  WatchEnginePort &
  StudioCoordinatorPort &
  Pick<JobReadPort, 'activeCount' | 'queuedCount'> &
  Pick<KeysPort, 'keyCount' | 'createKey'>

/** The whole engine as its makers hold it (`createEngine`): every consumer's port. */
export type EnginePort = SettingsPort & ComposedEnginePort & ProcessEnginePort & KeysCommandPort & PresetsCommandPort & ModelsCommandPort

/** Replaceable parts of an engine; the defaults are the embedded, single-process ones. */
export interface EngineSeams {
  /**
   * Runs queued jobs. It is given the engine (as the studio coordinator's port) and what it may do with the engine's jobs
   * (`run/dispatch-access.ts`), never the stores. @default the in-process Scheduler
   */
  dispatcher?: (engine: StudioCoordinatorPort & SettingsPort<'concurrency'>, access: DispatchAccess) => Dispatcher
}
