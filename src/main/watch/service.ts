/**
 * The watched-folders service (SPEC §6): runners poke paths; the service waits for each file
 * to be fully written, decides from its content hash and the folder's settings whether it is
 * new, hands it to the engine through the narrow `WatchProcessor`, and when the job is done
 * copies the results into the output folder under collision-safe names. Every step is
 * recorded in the store first, so a restart resumes where it stopped (docs/watch.md).
 */
import { EventEmitter } from 'node:events'
import { randomUUID } from 'node:crypto'
import type { Stats } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join, relative } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { type WatchAddRequest, type WatchEvent, type WatchFolderView, type WatchRetryRequest, type WatchRetryResult, type WatchUpdateRequest } from '../../shared/watch'
import { viaSymlink } from '../contained-dir'
import type { Db } from '../engine/store/db'
import { WatchFolders } from './config'
import { contentHash, looksComplete, settingsHash } from './filter'
import type { SubmitResult, WatchProcessor } from './processor'
import { FileRecords } from './file-records'
import { Limiter, pidAlive, statFile, submissionName, waitStable } from './files'
import { JobOutcomes } from './outcomes'
import { WatchPlacement } from './placement'
import { FolderRunner } from './runner'
import { doneDirOf, outputDirOf, WatchStore, type WatchFileRecord, type WatchFolderRecord } from './store'
import { isStrictlyInside } from './template'
import { folderView, type RuntimeInfo } from './views'

export interface WatchServiceOptions {
  db: Db
  processor: WatchProcessor
  /** How long a file's size and modification time must stay the same before it is read. @default 2000 ms */
  stableMs?: number
  /** How often a settling file is checked. @default 250 ms */
  pollMs?: number
  /** How often the service renews its lease, reloads folders changed by other processes and re-checks held files. @default 1000 ms */
  syncMs?: number
  /** Full rescan of every active folder, for events the OS dropped. @default 60 s */
  rescanMs?: number
  /** How long a stable file that looks cut short (no PNG IEND, no JPEG end marker…) is waited for before it is sent anyway. @default 30 s */
  incompleteGraceMs?: number
  /** Files read and submitted at once. @default 2 */
  intakeConcurrency?: number
  /** A lease not renewed for this long is free (its process hung or died). @default 15 s */
  leaseTtlMs?: number
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

interface PendingPath {
  folderId: string
  rel: string
  again: boolean
  /** Counted as waiting in views (false while only checking that an unchanged file is unchanged). */
  visible: boolean
}



export class WatchService extends EventEmitter<WatchServiceEvents> {
  readonly store: WatchStore
  readonly folders: WatchFolders
  private readonly processor: WatchProcessor
  private readonly o: Required<Omit<WatchServiceOptions, 'db' | 'processor'>>
  private readonly me = { owner: randomUUID(), pid: process.pid, host: hostname() }
  private running = false
  private leader = false
  private standbyHolder: { pid: number; host: string } | null = null
  private readonly runners = new Map<string, FolderRunner>()
  private readonly pending = new Map<string, PendingPath>()
  private readonly incompleteSince = new Map<string, number>()
  private readonly lastHeldPoke = new Map<number, number>()
  private readonly tasks = new Set<Promise<unknown>>()
  private readonly emitTimers = new Map<string, NodeJS.Timeout>()
  private readonly intake: Limiter
  private readonly placement: WatchPlacement
  private readonly records: FileRecords
  private readonly outcomes: JobOutcomes
  private abort = new AbortController()
  private timer: NodeJS.Timeout | null = null
  private ticks = 0
  private ticking = false
  private announcedStandby = false
  private syncChain: Promise<void> = Promise.resolve()
  private unsubscribe: (() => void) | null = null

  constructor(opts: WatchServiceOptions) {
    super()
    this.store = new WatchStore(opts.db)
    this.folders = new WatchFolders(this.store)
    this.processor = opts.processor
    this.o = {
      stableMs: opts.stableMs ?? 2000,
      pollMs: opts.pollMs ?? 250,
      syncMs: opts.syncMs ?? 1000,
      rescanMs: opts.rescanMs ?? 60_000,
      incompleteGraceMs: opts.incompleteGraceMs ?? 30_000,
      intakeConcurrency: opts.intakeConcurrency ?? 2,
      leaseTtlMs: opts.leaseTtlMs ?? 15_000,
      busyRetryMs: opts.busyRetryMs ?? 10_000,
      now: opts.now ?? (() => new Date()),
      log: opts.log ?? ((m) => console.error(`clipdesk watch: ${m}`))
    }
    this.intake = new Limiter(this.o.intakeConcurrency)
    this.placement = new WatchPlacement({ store: this.store, now: this.o.now, changed: (id) => this.changed(id) })
    this.records = new FileRecords(this.store, (id) => this.changed(id))
    this.outcomes = new JobOutcomes({
      store: this.store,
      processor: this.processor,
      placement: this.placement,
      active: () => this.running && this.leader,
      changed: (id) => this.changed(id),
      poke: (folderId, rel) => this.poke(folderId, rel)
    })
  }

  // ── lifecycle ────────────────────────────────────────────────────────────────────────────

  /** Takes the lease (or stands by), resumes files in flight, and starts watching active folders. */
  async start(): Promise<void> {
    if (this.running) return
    this.running = true
    this.abort = new AbortController()
    this.unsubscribe = this.processor.onJobChange((jobId) => this.track(this.outcomes.check(jobId)))
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
    if (this.leader) this.store.releaseLease(this.me.owner)
    this.leader = false
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
    const f = this.folders.add(request)
    await this.applyChanges(f.id)
    return this.view(f.id)!
  }

  async update(request: WatchUpdateRequest): Promise<WatchFolderView> {
    const f = this.folders.update(request)
    await this.applyChanges(f.id)
    return this.view(f.id)!
  }

  async pause(id: string): Promise<WatchFolderView> {
    const f = this.folders.setPaused(id, true)
    await this.applyChanges(f.id)
    return this.view(f.id)!
  }

  async resume(id: string): Promise<WatchFolderView> {
    const f = this.folders.setPaused(id, false)
    await this.applyChanges(f.id)
    return this.view(f.id)!
  }

  /** Removes a folder and its history; its jobs under way are cancelled. Output files stay. */
  async remove(id: string): Promise<void> {
    const f = this.folders.get(id)
    const inFlight = this.store.filesInState(['processing'], f.id)
    this.folders.remove(f.id)
    for (const row of inFlight) if (row.jobId) this.processor.cancel(row.jobId)
    await this.applyChanges(f.id)
  }

  async retry(request: WatchRetryRequest): Promise<WatchRetryResult> {
    const { folder, files } = this.folders.retry(request)
    for (const id of files) {
      const row = this.store.file(id)
      if (row) this.poke(folder.id, row.relPath)
    }
    this.changed(folder.id)
    return { retried: files.length }
  }

  private async applyChanges(folderId: string): Promise<void> {
    this.changed(folderId)
    if (this.running) await this.sync()
  }

  // ── lease, runners, periodic checks ──────────────────────────────────────────────────────

  private runtime(f: WatchFolderRecord): RuntimeInfo {
    const pending = [...this.pending.values()].filter((p) => p.folderId === f.id && p.visible).map((p) => p.rel)
    if (!this.running) return { state: 'stopped', message: 'not watched now: start the app or `clipdesk serve`', pending }
    if (!this.leader) {
      const h = this.standbyHolder
      return { state: 'standby', message: h ? `watched by another Clipdesk process (${h.pid} on ${h.host})` : 'waiting to watch', pending }
    }
    const r = this.runners.get(f.id)
    if (!r) return { state: 'active', message: null, pending }
    return { state: r.state === 'unavailable' ? 'unavailable' : 'active', message: r.message, pending }
  }

  private async tick(): Promise<void> {
    if (this.ticking || !this.running) return
    this.ticking = true
    try {
      await this.sync()
      if (!this.leader) return
      // Jobs run by the engine of this process push events; the poll is the safety net.
      if (++this.ticks % 5 === 0) for (const row of this.store.filesInState(['processing'])) if (row.jobId) this.track(this.outcomes.check(row.jobId))
      this.pokeHeld()
    } catch (err) {
      this.o.log(`sync failed: ${(err as Error).message}`)
    } finally {
      this.ticking = false
    }
  }

  /** Files waiting in the store (retries asked for by another process; submits the engine refused as busy). */
  private pokeHeld(): void {
    const now = Date.now()
    for (const row of this.store.filesInState(['waiting'])) {
      if (!this.runners.has(row.folderId) || this.pending.has(`${row.folderId}\n${row.relPath}`)) continue
      const last = this.lastHeldPoke.get(row.id) ?? 0
      if (row.errorCode !== null && now - last < this.o.busyRetryMs) continue
      this.lastHeldPoke.set(row.id, now)
      this.poke(row.folderId, row.relPath)
    }
  }

  /** Applies the lease and the stored folders; calls never overlap (each waits for the previous). */
  private sync(): Promise<void> {
    const next = this.syncChain.then(() => this.syncNow())
    this.syncChain = next.catch(() => undefined)
    return next
  }

  private async syncNow(): Promise<void> {
    if (!this.running) return
    const holder = this.store.acquireLease(this.me, this.o.leaseTtlMs, pidAlive)
    if (holder.owner !== this.me.owner) {
      const wasLeader = this.leader
      this.leader = false
      this.standbyHolder = { pid: holder.pid, host: holder.host }
      if (wasLeader) {
        this.o.log(`another process (${holder.pid}) took over watching; standing by`)
        await Promise.all([...this.runners.values()].map((r) => r.close()))
        this.runners.clear()
      }
      if (wasLeader || !this.announcedStandby) for (const f of this.store.folders()) this.changed(f.id)
      this.announcedStandby = true
      return
    }
    this.announcedStandby = false
    this.standbyHolder = null
    if (!this.leader) {
      this.leader = true
      this.recoverInFlight()
    }
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
      const runner = new FolderRunner(f, key, { excluded, rescanMs: this.o.rescanMs }, {
        poke: (folderId, rel) => this.poke(folderId, rel),
        knownPaths: (folderId) => this.store.filesOf(folderId).map((r) => r.relPath),
        changed: (folderId) => this.changed(folderId),
        log: this.o.log
      })
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
      .map((d) => relative(f.path, d).split(/[\\/]/).join('/'))
      .sort()
  }

  /**
   * After taking the lease: a submit cut short by a crash either made its job (found by the
   * submission's name) or not (the file waits again); jobs in flight are re-attached.
   */
  private recoverInFlight(): void {
    for (const row of this.store.filesInState(['submitting'])) {
      const jobId = row.token ? this.processor.findSubmitted(submissionName(row)) : null
      if (jobId) this.store.patchFile(row.id, { state: 'submitting' }, { state: 'processing', jobId })
      else this.store.patchFile(row.id, { state: 'submitting' }, { state: 'waiting' })
    }
    for (const row of this.store.filesInState(['processing'])) if (row.jobId) this.track(this.outcomes.check(row.jobId))
  }

  // ── one path: settle, read, decide, submit ──────────────────────────────────────────────

  private poke(folderId: string, rel: string): void {
    if (!this.running || !this.leader || !this.runners.has(folderId)) return
    const key = `${folderId}\n${rel}`
    const cur = this.pending.get(key)
    if (cur) {
      cur.again = true
      return
    }
    const entry: PendingPath = { folderId, rel, again: false, visible: false }
    this.pending.set(key, entry)
    this.track(this.drive(entry, key))
  }

  private isActive(folderId: string): boolean {
    return this.running && this.leader && this.runners.has(folderId)
  }

  private async drive(entry: PendingPath, key: string): Promise<void> {
    try {
      do {
        entry.again = false
        if (!this.isActive(entry.folderId)) return
        const folder = this.store.folder(entry.folderId)
        if (!folder) return
        const abs = join(folder.path, ...entry.rel.split('/'))
        const row = this.store.fileByPath(folder.id, entry.rel)
        if (await viaSymlink(folder.path, abs)) {
          await this.records.refuseLink(folder, entry.rel, abs, row)
          continue
        }
        const first = await statFile(abs)
        if (!first) {
          this.records.gone(folder, row)
          continue
        }
        if (row && this.unchanged(row, first, folder)) {
          if ((row.state === 'done' || row.state === 'skipped') && folder.originals === 'move') await this.placement.moveOriginal(folder, row)
          continue
        }
        if (!entry.visible) {
          entry.visible = true
          this.changed(folder.id)
        }
        const st = await waitStable(abs, { pollMs: this.o.pollMs, stableMs: this.o.stableMs, signal: this.abort.signal })
        if (!this.isActive(folder.id)) return
        if (st === 'empty') continue // a later write pokes it again
        if (st === null) {
          this.records.gone(folder, this.store.fileByPath(folder.id, entry.rel))
          continue
        }
        const result = await this.intakeFile(folder, entry.rel, abs, st)
        if (result === 'again') entry.again = true
        else if (result === 'incomplete') {
          await sleep(this.o.stableMs, undefined, { signal: this.abort.signal })
          entry.again = true
        }
      } while (entry.again && this.running)
    } catch (err) {
      if (!this.abort.signal.aborted) this.o.log(`${entry.rel}: ${(err as Error).message}`)
    } finally {
      this.pending.delete(key)
      if (entry.visible) this.changed(entry.folderId)
    }
  }

  /** Same version (size, time) of the file, same settings, and nothing asked of it. */
  private unchanged(row: WatchFileRecord, st: Stats, folder: WatchFolderRecord): boolean {
    return row.state !== 'waiting' && row.size === st.size && row.mtimeMs === st.mtimeMs && row.settingsHash === settingsHash(folder.request)
  }

  private async intakeFile(folder: WatchFolderRecord, rel: string, abs: string, st: Stats): Promise<'again' | 'incomplete' | void> {
    const settings = settingsHash(folder.request)
    if (st.size > this.processor.maxBytes) {
      this.records.recordFailure(folder, rel, st, null, settings, 'payload_too_large', `The file is larger than the upload limit of ${this.processor.maxBytes} bytes.`)
      return
    }
    return this.intake.run(async () => {
      if (!this.isActive(folder.id)) return
      let bytes: Buffer
      try {
        bytes = await readFile(abs)
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code
        if (code === 'ENOENT' || code === 'EISDIR') return 'again'
        this.records.recordFailure(folder, rel, st, null, settings, 'read_failed', `The file could not be read: ${(err as Error).message}`)
        return
      }
      const after = await statFile(abs)
      if (!after || after.size !== st.size || after.mtimeMs !== st.mtimeMs || bytes.length !== st.size) return 'again'
      const key = `${folder.id}\n${rel}`
      if (!looksComplete(bytes)) {
        const since = this.incompleteSince.get(key) ?? Date.now()
        this.incompleteSince.set(key, since)
        if (Date.now() - since < this.o.incompleteGraceMs) return 'incomplete'
      }
      this.incompleteSince.delete(key)
      const hash = contentHash(bytes)
      const decision = this.records.decide(folder, rel, st, hash, settings)
      if (decision.kind === 'same') {
        const row = decision.row
        if ((row.state === 'done' || row.state === 'skipped') && folder.originals === 'move') await this.placement.moveOriginal(folder, row)
        return
      }
      if (decision.kind === 'skipped') {
        this.store.addEvent(folder.id, 'skipped', rel, `same content as ${decision.duplicateOf}, already processed with these settings`)
        this.changed(folder.id)
        if (folder.originals === 'move') await this.placement.moveOriginal(folder, decision.row)
        return
      }
      if (decision.cancelJob) this.processor.cancel(decision.cancelJob)
      const row = decision.row
      this.changed(folder.id)
      let res: SubmitResult
      try {
        res = await this.processor.submit({ request: folder.request, bytes, filename: submissionName(row) })
      } catch (err) {
        res = { ok: false, code: 'internal_error', message: `The job could not be submitted: ${(err as Error).message}`, retryable: false }
      }
      if (res.ok) {
        if (!this.store.patchFile(row.id, { state: 'submitting', jobId: null }, { state: 'processing', jobId: res.jobId })) {
          this.processor.cancel(res.jobId) // the row moved on (folder removed, newer version)
          return
        }
        this.changed(folder.id)
        this.track(this.outcomes.check(res.jobId))
      } else if (res.retryable) {
        this.store.patchFile(row.id, { state: 'submitting' }, { state: 'waiting', errorCode: res.code, errorMessage: res.message })
        this.lastHeldPoke.set(row.id, Date.now())
        this.changed(folder.id)
      } else {
        if (this.store.patchFile(row.id, { state: 'submitting' }, { state: 'failed', errorCode: res.code, errorMessage: res.message })) {
          this.store.addEvent(folder.id, 'failed', rel, res.message)
        }
        this.changed(folder.id)
      }
    })
  }

  // ── plumbing ─────────────────────────────────────────────────────────────────────────────

  private track<T>(p: Promise<T>): void {
    const t = p.catch((err: unknown) => {
      if (!this.abort.signal.aborted) this.o.log((err as Error).message)
    })
    this.tasks.add(t)
    void t.finally(() => this.tasks.delete(t))
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
