/**
 * Where `clipdesk process` has its photos worked on: an engine of its own in this process (the
 * data folder free), or the server that owns the folder (`owner-client.ts`). Both take a photo,
 * say how its job ended with the result files on this machine, and stop what they wait on when
 * the run is stopped; the command itself (`process.ts`) writes the files and keeps the ledger
 * the same way whichever works.
 */
import type { PresetInfo } from '../../shared/presets'
import type { PresetLookup } from '../../shared/params-layers'
import type { RuleSet, StoreCheck } from '../../shared/store-rules'
import { createEngine } from '../engine/create'
import type { ProcessEnginePort } from '../engine/ports'
import { JobEnds, jobOutcome, submitFile, type JobOutcome, type JobRequest, type SubmitResult } from '../outputs/engine-jobs'
import { complain, say } from './print'

export interface ProgressHooks {
  /** The model is loaded (or another process runs it): the bar may start. */
  modelReady(): void
  /** A photo is being worked on (not only queued). */
  photoRunning(): void
}

export interface ProcessBackend {
  /** The presets the options are checked against (the data folder's and the built-in ones). */
  presets: { lookup: PresetLookup; list(): Array<Pick<PresetInfo, 'name'>> }
  /** How many photos are handed over at a time. */
  lanes: number
  /** The model loads in this process ("Loading the model…" until it is ready). */
  loadsModel: boolean
  /** Starts taking work (`hooks` follow the first photo and the model). */
  start(hooks: ProgressHooks, photos: number): void
  submit(request: JobRequest, file: { bytes: Buffer; filename: string }): Promise<SubmitResult>
  /** Waits for the job's end; once done, its result files are on this machine until `finished`. */
  outcome(jobId: string, allVariations: boolean): Promise<JobOutcome>
  /** The job's files are written (or given up): what was kept for it may go. */
  finished(jobId: string): Promise<void>
  /** Stops the jobs being waited on (Ctrl-C); the next run does them. */
  cancelWaiting(): void
  /**
   * The store checks of a done job (docs/store-ready.md): the store its preset is named for, as
   * the engine checked it, and each of `extra` (`--check`) not among those; `written` is the
   * job's main file as this command wrote it.
   */
  checks(jobId: string, extra: readonly RuleSet[], written: string): Promise<StoreCheck[]>
  /** Why the run cannot go on (the owner stopped), or null. */
  lost(): string | null
  close(): Promise<void>
}

/** The command's own engine on a data folder no other process holds. */
export function localBackend(dataDir: string): ProcessBackend {
  const engine: ProcessEnginePort = createEngine({ dataDir, role: 'process' })
  let ends: JobEnds | null = null
  let onJob: ((e: { status: string }) => void) | null = null
  return {
    presets: { lookup: engine.presetLookup, list: () => engine.presetsList() },
    lanes: Math.max(2, 2 * engine.options.concurrency),
    loadsModel: true,
    start(hooks, photos) {
      ends = new JobEnds(engine)
      onJob = (e) => {
        if (e.status !== 'queued') hooks.photoRunning()
      }
      engine.on('job', onJob)
      engine.start()
      if (photos === 0) return
      void engine
        .warmUp()
        .then(
          (w) => say(`Model ${w.model} on ${w.device} ready${w.warning ? ` (${w.warning})` : ''}`),
          (err: Error) => complain(`The model could not be loaded: ${err.message}`)
        )
        .finally(() => hooks.modelReady())
    },
    submit: (request, file) => submitFile(engine, request, file),
    async outcome(jobId, all) {
      await ends?.wait(jobId)
      return jobOutcome(engine, jobId, all)
    },
    finished: async () => undefined, // the engine keeps its results until the retention sweep
    cancelWaiting() {
      for (const id of ends?.waiting() ?? []) engine.cancel(id)
    },
    async checks(jobId, extra) {
      const own = engine.jobChecks(jobId) ?? []
      const more = extra.filter((s) => !own.some((c) => c.store === s.name))
      return [...own, ...(more.length > 0 ? await engine.checkJobResult(jobId, more) : [])]
    },
    lost: () => null,
    async close() {
      if (onJob) engine.off('job', onJob)
      ends?.close()
      await engine.stop()
    }
  }
}
