/**
 * One path of a watched folder, from a poke to a submitted job: wait for the file to be fully
 * written, read it once, decide from its content hash and the folder's settings whether it is
 * new (`file-records.ts`), and hand it to the engine. Pokes of a path already in hand are
 * folded into one more round. Every decision is recorded before the next step (docs/watch.md).
 */
import type { Stats } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { viaSymlink } from '../outputs/contained-dir'
import type { FileRecords } from './file-records'
import { statFile, submissionName, waitStable } from './files'
import { contentHash, looksComplete, settingsHash } from './filter'
import { Limiter } from '../../shared/limit'
import type { JobOutcomes } from './outcomes'
import type { WatchPlacement } from './placement'
import type { SubmitResult, WatchProcessor } from './processor'
import type { WatchFileRecord, WatchFolderRecord, WatchStore } from './store'
import { errorText } from '../../shared/errors'

export interface IntakeTiming {
  stableMs: number
  pollMs: number
  incompleteGraceMs: number
  intakeConcurrency: number
}

export interface IntakeDeps {
  store: WatchStore
  processor: WatchProcessor
  records: FileRecords
  placement: WatchPlacement
  outcomes: JobOutcomes
  /** Whether the folder is being watched by this service now. */
  isActive(folderId: string): boolean
  /** Aborted when the service stops. */
  signal(): AbortSignal
  changed(folderId: string): void
  /** Says something about a file in the folder's activity, once (the same words for the same file are not repeated). */
  note(folderId: string, rel: string, message: string): void
  track(p: Promise<unknown>): void
  log(message: string): void
}

interface PendingPath {
  folderId: string
  rel: string
  again: boolean
  /** Counted as waiting in views (false while only checking that an unchanged file is unchanged). */
  visible: boolean
}

const keyOf = (folderId: string, rel: string): string => `${folderId}\n${rel}`

export class FileIntake {
  private readonly pending = new Map<string, PendingPath>()
  private readonly incompleteSince = new Map<string, number>()
  /** When a file waiting in the store (a retry, a submit refused as busy) was last poked. */
  readonly lastHeldPoke = new Map<number, number>()
  private readonly limiter: Limiter

  constructor(
    private readonly d: IntakeDeps,
    private readonly o: IntakeTiming
  ) {
    this.limiter = new Limiter(o.intakeConcurrency)
  }

  /** Paths of a folder in hand and counted as waiting (for its view). */
  visiblePaths(folderId: string): string[] {
    return [...this.pending.values()].filter((p) => p.folderId === folderId && p.visible).map((p) => p.rel)
  }

  inHand(folderId: string, rel: string): boolean {
    return this.pending.has(keyOf(folderId, rel))
  }

  /** A path may have changed: take it (or take it once more if it is in hand). */
  poke(folderId: string, rel: string): void {
    if (!this.d.isActive(folderId)) return
    const key = keyOf(folderId, rel)
    const cur = this.pending.get(key)
    if (cur) {
      cur.again = true
      return
    }
    const entry: PendingPath = { folderId, rel, again: false, visible: false }
    this.pending.set(key, entry)
    this.d.track(this.drive(entry, key))
  }

  private async drive(entry: PendingPath, key: string): Promise<void> {
    const signal = this.d.signal()
    try {
      do {
        entry.again = false
        if (!this.d.isActive(entry.folderId)) return
        const folder = this.d.store.folder(entry.folderId)
        if (!folder) return
        const abs = join(folder.path, ...entry.rel.split('/'))
        const row = this.d.store.fileByPath(folder.id, entry.rel)
        if (await viaSymlink(folder.path, abs)) {
          await this.d.records.refuseLink(folder, entry.rel, abs, row)
          continue
        }
        const first = await statFile(abs)
        if (!first) {
          this.d.records.gone(folder, row)
          continue
        }
        if (row && unchanged(row, first, folder)) {
          if ((row.state === 'done' || row.state === 'skipped') && folder.originals === 'move')
            await this.d.placement.moveOriginal(folder, row)
          continue
        }
        if (!entry.visible) {
          entry.visible = true
          this.d.changed(folder.id)
        }
        const st = await waitStable(abs, { pollMs: this.o.pollMs, stableMs: this.o.stableMs, signal })
        if (!this.d.isActive(folder.id)) return
        if (st === 'empty') continue // a later write pokes it again
        if (st === null) {
          this.d.records.gone(folder, this.d.store.fileByPath(folder.id, entry.rel))
          continue
        }
        const result = await this.intakeFile(folder, entry.rel, abs, st)
        if (result === 'again') entry.again = true
        else if (result === 'incomplete') {
          await sleep(this.o.stableMs, undefined, { signal })
          entry.again = true
        }
      } while (entry.again && this.d.isActive(entry.folderId))
    } catch (err) {
      if (!signal.aborted) this.d.log(`${entry.rel}: ${errorText(err)}`)
    } finally {
      this.pending.delete(key)
      if (entry.visible) this.d.changed(entry.folderId)
    }
  }

  private async intakeFile(folder: WatchFolderRecord, rel: string, abs: string, st: Stats): Promise<'again' | 'incomplete' | void> {
    const settings = settingsHash(folder.request)
    const max = this.d.processor.maxBytes
    if (st.size > max) {
      this.d.records.recordFailure(
        folder,
        rel,
        st,
        null,
        settings,
        'payload_too_large',
        `The file is larger than the upload limit of ${max} bytes.`
      )
      return
    }
    return this.limiter.run(async () => {
      if (!this.d.isActive(folder.id)) return
      let bytes: Buffer
      try {
        bytes = await readFile(abs)
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code
        if (code === 'ENOENT' || code === 'EISDIR') return 'again'
        this.d.records.recordFailure(folder, rel, st, null, settings, 'read_failed', `The file could not be read: ${errorText(err)}`)
        return
      }
      const after = await statFile(abs)
      if (!after || after.size !== st.size || after.mtimeMs !== st.mtimeMs || bytes.length !== st.size) return 'again'
      const key = keyOf(folder.id, rel)
      if (!looksComplete(bytes)) {
        const since = this.incompleteSince.get(key) ?? Date.now()
        if (!this.incompleteSince.has(key)) {
          const message = `looks cut short (its end is missing): waiting up to ${Math.round(this.o.incompleteGraceMs / 1000)} s for the rest, then it is tried as it is`
          this.d.log(`${rel}: ${message}`)
          this.d.note(folder.id, rel, message)
        }
        this.incompleteSince.set(key, since)
        if (Date.now() - since < this.o.incompleteGraceMs) return 'incomplete'
      }
      this.incompleteSince.delete(key)
      const decision = this.d.records.decide(folder, rel, st, contentHash(bytes), settings)
      if (decision.kind === 'same') {
        const row = decision.row
        if ((row.state === 'done' || row.state === 'skipped') && folder.originals === 'move')
          await this.d.placement.moveOriginal(folder, row)
        return
      }
      if (decision.kind === 'skipped') {
        this.d.store.activity.add(
          folder.id,
          'skipped',
          rel,
          `same content as ${decision.duplicateOf}, already processed with these settings`
        )
        this.d.changed(folder.id)
        if (folder.originals === 'move') await this.d.placement.moveOriginal(folder, decision.row)
        return
      }
      if (decision.cancelJob) this.d.processor.cancel(decision.cancelJob)
      this.d.changed(folder.id)
      await this.submit(folder, decision.row, bytes)
    })
  }

  private async submit(folder: WatchFolderRecord, row: WatchFileRecord, bytes: Buffer): Promise<void> {
    let res: SubmitResult
    try {
      res = await this.d.processor.submit({ request: folder.request, bytes, filename: submissionName(row) })
    } catch (err) {
      res = { ok: false, code: 'internal_error', message: `The job could not be submitted: ${errorText(err)}`, retryable: false }
    }
    const store = this.d.store
    if (res.ok) {
      if (!store.patchFile(row.id, { state: 'submitting', jobId: null }, { state: 'processing', jobId: res.jobId })) {
        this.d.processor.cancel(res.jobId) // the row moved on (folder removed, newer version)
        return
      }
      this.d.changed(folder.id)
      this.d.track(this.d.outcomes.check(res.jobId))
    } else if (res.retryable) {
      store.patchFile(row.id, { state: 'submitting' }, { state: 'waiting', errorCode: res.code, errorMessage: res.message })
      this.lastHeldPoke.set(row.id, Date.now())
      this.d.changed(folder.id)
    } else {
      if (store.patchFile(row.id, { state: 'submitting' }, { state: 'failed', errorCode: res.code, errorMessage: res.message })) {
        store.activity.add(folder.id, 'failed', row.relPath, res.message)
      }
      this.d.changed(folder.id)
    }
  }
}

/** Same version (size, time) of the file, same settings, and nothing asked of it. */
function unchanged(row: WatchFileRecord, st: Stats, folder: WatchFolderRecord): boolean {
  return row.state !== 'waiting' && row.size === st.size && row.mtimeMs === st.mtimeMs && row.settingsHash === settingsHash(folder.request)
}
