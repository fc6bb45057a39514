/**
 * The watched-folders service (docs/watch.md): runners poke paths (`runner.ts`); the intake
 * waits for each file to be fully written, decides whether it is new and hands it to the engine
 * through the narrow `WatchProcessor` (`intake.ts`); when a job is done its results are written
 * into the output folder (`outcomes.ts`, `placement.ts`). Every step is recorded in the store
 * first, so a restart resumes where it stopped.
 *
 * It runs in the process that runs the engine: one engine runs per data folder (the run lock,
 * engine/store/run-lock.ts), so one process watches a data folder's folders.
 */
import { EventEmitter } from 'node:events'
import type {
  WatchActivityKind,
  WatchAddRequest,
  WatchEvent,
  WatchFolderView,
  WatchRetryRequest,
  WatchRetryResult,
  WatchUpdateRequest
} from '../../shared/watch'
import type { TouchUpTarget } from '../../shared/touchup'
import type { FeatureTables } from '../engine/feature-tables'
import { presetLookupIn } from '../engine/data-folder'
import type { TouchUpFile } from '../touchup/touchups'
import { isStrictlyInside, relativeName } from '../outputs/paths'
import { sweepTempFiles } from '../outputs/temp-sweep'
import { checkWatchOutput, WatchFolders } from './config'
import { FileRecords } from './file-records'
import { submissionName } from './files'
import { FileIntake } from './intake'
import { JobOutcomes } from './outcomes'
import { WatchPlacement } from './placement'
import type { WatchProcessor } from './processor'
import { FolderRunner } from './runner'
import { watchTouchUpFile } from './touchup-file'
import { doneDirOf, outputDirOf, WatchStore, type WatchFolderRecord } from './store'
import { folderView, STOPPED, type RuntimeInfo } from './views'
import { errorText } from '../../shared/errors'

/** What the activity says about a file of the folder that is not an image. */
export const NOT_AN_IMAGE_NOTE = 'not an image (PNG, JPEG, WebP, GIF, AVIF, TIFF, PSD or SVG): left as it is'

export interface WatchServiceOptions {
  /** The watch tables' handle in the data folder's database (`engine/feature-tables.ts`). */
  tables: FeatureTables
  processor: WatchProcessor
  /** How long a file's size and modification time must stay the same before it is read. @default 2000 ms */
  stableMs?: number
  /** How often a settling file is checked. @default 250 ms */
  pollMs?: number
  /** How often the service reloads folders changed by other processes and re-checks held files. @default 1000 ms */
  syncMs?: number
  /** Full rescan of every active folder, for events the OS dropped. @default 60 s */
  rescanMs?: number
  /** How long a stable file that looks cut short (no PNG IEND, no JPEG end marker…) is waited for before it is sent anyway. @default 30 s */
  incompleteGraceMs?: number
  /** Files read and submitted at once. @default 2 */
  intakeConcurrency?: number
  /** Wait before submitting again a file the engine refused as busy (503). @default 10 s */
  busyRetryMs?: number
  /** Clock for the `{date}` token. @default () => new Date() */
  now?: () => Date
  log?: (message: string) => void
}

export interface WatchServiceEvents {
  /** A folder's view changed (coalesced); `folder` is null once removed. */
  watch: [WatchEvent]
}

export class WatchService extends EventEmitter<WatchServiceEvents> {
  readonly store: WatchStore
  readonly folders: WatchFolders
  private readonly processor: WatchProcessor
  private readonly o: Required<Omit<WatchServiceOptions, 'tables' | 'processor'>>
  private running = false
  private readonly runners = new Map<string, FolderRunner>()
  private readonly tasks = new Set<Promise<unknown>>()
  private readonly emitTimers = new Map<string, NodeJS.Timeout>()
  private readonly placement: WatchPlacement
  private readonly outcomes: JobOutcomes
  private readonly intake: FileIntake
  private abort = new AbortController()
  private timer: NodeJS.Timeout | null = null
  private ticks = 0
  private ticking = false
  private syncChain: Promise<void> = Promise.resolve()
  private unsubscribe: (() => void) | null = null

  constructor(opts: WatchServiceOptions) {
    super()
    this.store = new WatchStore(opts.tables)
    this.folders = new WatchFolders(this.store, presetLookupIn(opts.tables))
    this.processor = opts.processor
    this.o = {
      stableMs: opts.stableMs ?? 2000,
      pollMs: opts.pollMs ?? 250,
      syncMs: opts.syncMs ?? 1000,
      rescanMs: opts.rescanMs ?? 60_000,
      incompleteGraceMs: opts.incompleteGraceMs ?? 30_000,
      intakeConcurrency: opts.intakeConcurrency ?? 2,
      busyRetryMs: opts.busyRetryMs ?? 10_000,
      now: opts.now ?? (() => new Date()),
      log: opts.log ?? ((m) => console.error(`clipdesk watch: ${m}`))
    }
    const changed = (id: string): void => this.changed(id)
    this.placement = new WatchPlacement({ store: this.store, now: this.o.now, changed })
    this.outcomes = new JobOutcomes({
      store: this.store,
      processor: this.processor,
      placement: this.placement,
      active: () => this.running,
      changed,
      poke: (folderId, rel) => this.intake.poke(folderId, rel)
    })
    this.intake = new FileIntake(
      {
        store: this.store,
        processor: this.processor,
        records: new FileRecords(this.store, changed),
        placement: this.placement,
        outcomes: this.outcomes,
        isActive: (folderId) => this.running && this.runners.has(folderId),
        signal: () => this.abort.signal,
        changed,
        note: (folderId, rel, message) => this.note(folderId, 'note', rel, message),
        track: (p) => this.track(p),
        log: this.o.log
      },
      this.o
    )
  }

  // ── lifecycle ────────────────────────────────────────────────────────────────────────────

  /** Resumes files in flight and starts watching the active folders. */
  async start(): Promise<void> {
    if (this.running) return
    this.running = true
    this.abort = new AbortController()
    this.unsubscribe = this.processor.onJobChange((jobId) => this.track(this.outcomes.check(jobId)))
    this.recoverInFlight()
    await this.sync()
    this.timer = setInterval(() => void this.tick(), this.o.syncMs)
    this.timer.unref()
  }

  /** Stops watching and waits for work under way; jobs already submitted are resumed at the next start. */
  async stop(): Promise<void> {
    if (!this.running) return
    this.running = false
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    this.unsubscribe?.()
    this.unsubscribe = null
    this.abort.abort()
    await Promise.all([...this.runners.values()].map((r) => r.close()))
    this.runners.clear()
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks])
    for (const t of this.emitTimers.values()) clearTimeout(t)
    this.emitTimers.clear()
  }

  // ── folder operations (IPC, app bridge) ──────────────────────────────────────────────────

  list(): WatchFolderView[] {
    return this.store.folders().map((f) => folderView(this.store, f, this.runtime(f)))
  }

  view(id: string): WatchFolderView | null {
    const f = this.store.folder(id)
    return f ? folderView(this.store, f, this.runtime(f)) : null
  }

  /** Adds a folder; resolves once the service has taken the change (the first scan runs on). */
  async add(request: WatchAddRequest): Promise<WatchFolderView> {
    await checkWatchOutput(request)
    return this.applied(this.folders.add(request).id)
  }

  async update(request: WatchUpdateRequest): Promise<WatchFolderView> {
    if (request.output_dir) await checkWatchOutput({ output_dir: request.output_dir })
    return this.applied(this.folders.update(request).id)
  }

  async pause(id: string): Promise<WatchFolderView> {
    return this.applied(this.folders.setPaused(id, true).id)
  }

  async resume(id: string): Promise<WatchFolderView> {
    return this.applied(this.folders.setPaused(id, false).id)
  }

  /** Removes a folder and its history; its jobs under way are cancelled. Output files stay. */
  async remove(id: string): Promise<void> {
    const f = this.folders.get(id)
    const inFlight = this.store.filesInState(['processing'], f.id)
    this.folders.remove(f.id)
    for (const row of inFlight) if (row.jobId) this.processor.cancel(row.jobId)
    this.changed(f.id)
    if (this.running) await this.sync()
  }

  /** A done file of a folder as the touch-up sees it (`touchup-file.ts`). */
  touchUpFile(target: Extract<TouchUpTarget, { kind: 'watch' }>): TouchUpFile {
    return watchTouchUpFile({ store: this.store, changed: (id) => this.changed(id) }, target)
  }

  async retry(request: WatchRetryRequest): Promise<WatchRetryResult> {
    const { folder, files } = this.folders.retry(request)
    for (const id of files) {
      const row = this.store.file(id)
      if (row) this.intake.poke(folder.id, row.relPath)
    }
    this.changed(folder.id)
    return { retried: files.length }
  }

  private async applied(folderId: string): Promise<WatchFolderView> {
    this.changed(folderId)
    if (this.running) await this.sync()
    return this.view(folderId)!
  }

  // ── runners, periodic checks ─────────────────────────────────────────────────────────────

  private runtime(f: WatchFolderRecord): RuntimeInfo {
    const pending = this.intake.visiblePaths(f.id)
    if (!this.running) return { ...STOPPED, pending }
    const r = this.runners.get(f.id)
    if (!r) return { state: 'active', message: null, pending }
    return { state: r.state === 'unavailable' ? 'unavailable' : 'active', message: r.message, pending }
  }

  private async tick(): Promise<void> {
    if (this.ticking || !this.running) return
    this.ticking = true
    try {
      await this.sync()
      // Jobs run by the engine of this process push events; the poll is the safety net.
      if (++this.ticks % 5 === 0)
        for (const row of this.store.filesInState(['processing'])) if (row.jobId) this.track(this.outcomes.check(row.jobId))
      this.pokeHeld()
    } catch (err) {
      this.o.log(`sync failed: ${errorText(err)}`)
    } finally {
      this.ticking = false
    }
  }

  /** Files waiting in the store (retries asked for by another process; submits the engine refused as busy). */
  private pokeHeld(): void {
    const now = Date.now()
    const last = this.intake.lastHeldPoke
    for (const row of this.store.filesInState(['waiting'])) {
      if (!this.runners.has(row.folderId) || this.intake.inHand(row.folderId, row.relPath)) continue
      if (row.errorCode !== null && now - (last.get(row.id) ?? 0) < this.o.busyRetryMs) continue
      last.set(row.id, now)
      this.intake.poke(row.folderId, row.relPath)
    }
  }

  /** Applies the stored folders (changed here or by another process); calls never overlap. */
  private sync(): Promise<void> {
    const next = this.syncChain.then(() => this.syncNow())
    this.syncChain = next.catch(() => undefined)
    return next
  }

  private async syncNow(): Promise<void> {
    if (!this.running) return
    const folders = this.store.folders()
    const ids = new Set(folders.map((f) => f.id))
    for (const [id, r] of this.runners) {
      const f = folders.find((x) => x.id === id)
      if (!f || f.paused) {
        this.runners.delete(id)
        await r.close()
        if (f) this.changed(id)
      }
    }
    for (const f of folders) {
      if (f.paused) continue
      const excluded = this.excludedFor(f, folders)
      const key = `${f.revision}|${excluded.join('\n')}`
      const cur = this.runners.get(f.id)
      if (cur && cur.key === key) continue
      if (cur) await cur.close()
      // Started or resumed: a copy a crash cut short left its temp file in the output folder.
      else this.track(sweepTempFiles(outputDirOf(f)))
      const runner = new FolderRunner(
        f,
        key,
        { excluded, rescanMs: this.o.rescanMs },
        {
          poke: (folderId, rel) => this.intake.poke(folderId, rel),
          knownPaths: (folderId) => this.store.filesOf(folderId).map((r) => r.relPath),
          changed: (folderId) => this.changed(folderId),
          notImage: (folderId, rel) => this.note(folderId, 'skipped', rel, NOT_AN_IMAGE_NOTE),
          log: this.o.log
        }
      )
      this.runners.set(f.id, runner)
      this.track(runner.open())
      this.changed(f.id)
    }
    for (const id of this.emitTimers.keys()) if (!ids.has(id)) this.changed(id)
  }

  /** Folders inside `f` that are not its inputs: its output and done folders, and other watched folders. */
  private excludedFor(f: WatchFolderRecord, all: WatchFolderRecord[]): string[] {
    const dirs = [outputDirOf(f), doneDirOf(f), ...all.filter((g) => g.id !== f.id).map((g) => g.path)]
    return dirs
      .filter((d) => isStrictlyInside(f.path, d))
      .map((d) => relativeName(f.path, d))
      .sort()
  }

  /**
   * At start: a submit cut short by a crash either made its job (found by the submission's
   * name) or not (the file waits again); jobs in flight are re-attached.
   */
  private recoverInFlight(): void {
    for (const row of this.store.filesInState(['submitting'])) {
      const jobId = row.token ? this.processor.findSubmitted(submissionName(row)) : null
      if (jobId) this.store.patchFile(row.id, { state: 'submitting' }, { state: 'processing', jobId })
      else this.store.patchFile(row.id, { state: 'submitting' }, { state: 'waiting' })
    }
    for (const row of this.store.filesInState(['processing'])) if (row.jobId) this.track(this.outcomes.check(row.jobId))
  }

  // ── plumbing ─────────────────────────────────────────────────────────────────────────────

  private track<T>(p: Promise<T>): void {
    const t = p.catch((err: unknown) => {
      if (!this.abort.signal.aborted) this.o.log(errorText(err))
    })
    this.tasks.add(t)
    void t.finally(() => this.tasks.delete(t))
  }

  /** Says something about a file in the folder's activity, unless the same was said already (a rescan sees it again). */
  private note(folderId: string, kind: WatchActivityKind, rel: string, message: string): void {
    if (this.store.activity.has(folderId, kind, rel, message)) return
    this.store.activity.add(folderId, kind, rel, message)
    this.changed(folderId)
  }

  /** Emits the folder's view soon (coalesced, so 100 files at once make a few events, not hundreds). */
  private changed(folderId: string): void {
    if (this.emitTimers.has(folderId)) return
    const t = setTimeout(() => {
      this.emitTimers.delete(folderId)
      try {
        this.emit('watch', { folder_id: folderId, folder: this.view(folderId) })
      } catch {
        // the store was closed under a late timer: nothing to tell
      }
    }, 100)
    t.unref()
    this.emitTimers.set(folderId, t)
  }
}
