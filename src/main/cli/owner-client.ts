/**
 * `clipdesk process` beside the server that owns the data folder (`clipdesk serve`, paused or
 * not): instead of a second writer on its database, the command is a client of that engine. The
 * server leaves its address and an owner token in `owner.json` (`owner-note.ts`, mode 0600); the
 * command reads the folder's presets on a read-only connection (to check its options as
 * always), uploads each photo to `/api/v1/upload` with the token (the owner's own work: no key,
 * no credit, like a batch), follows `/api/v1/status`, downloads the results from their signed
 * addresses into a temporary folder, and writes them itself with its ledger. A paused owner is
 * said at once, not waited on; an owner that stops during the run ends it like a Ctrl-C, and the
 * same command continues it.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import type { JobStatusBody, Variation } from '../../shared/api'
import { resultsToWrite } from '../../shared/outputs'
import { DataDirBusy, folderHolder, readOnlyPresets, type RunLockHolder } from '../engine/data-folder'
import { warningLines, type JobOutcome, type SubmitResult } from '../outputs/engine-jobs'
import { OWNER_TOKEN_HEADER, readOwnerNote, type OwnerNote } from '../owner-note'
import type { StoreCheck } from '../../shared/store-rules'
import { FileChecker } from '../store-ready/checker'
import type { ProcessBackend } from './process-backend'
import { errorText } from '../../shared/errors'

const SAFE_PART = /^[A-Za-z0-9_]{1,32}$/

/** How often a job's status is asked while it runs. */
const POLL_MS = 400

/** The server that owns the folder, with its pid as the lock knows it. */
export interface FolderOwner {
  note: OwnerNote
  holder: RunLockHolder
}

/**
 * The owner of `dataDir` a command can work through; null when no process holds the folder (the
 * command runs its own engine). Throws `DataDirBusy` when a process holds it that takes no work
 * from commands (the app without its listener, another `clipdesk process`), and an Error naming
 * a paused owner.
 */
export function folderOwner(dataDir: string): FolderOwner | null {
  const holder = folderHolder(dataDir)
  if (!holder) return null // a note left by a crash names nobody: the lock is free
  const note = readOwnerNote(dataDir)
  if (!note || note.pid !== holder.pid) {
    // The app takes work from commands while its local API listens (Settings → API).
    if (holder.role === 'app') {
      throw new Error(
        `the Clipdesk app (pid ${holder.pid}) owns the data folder ${dataDir} and its local API is off: turn it on (API in the app) and run this again to work through the app, or quit the app`
      )
    }
    throw new DataDirBusy(dataDir, holder)
  }
  if (note.paused) {
    throw new Error(
      `the Clipdesk server running on the data folder ${dataDir} (pid ${note.pid}) is paused: it keeps jobs queued and runs none; start it without --paused, or stop it, and run this again`
    )
  }
  return { note, holder }
}

/** Not an answer from the owner: it stopped, or its port does not answer. */
class OwnerGone extends Error {}

export function ownerBackend(dataDir: string, owner: FolderOwner): ProcessBackend {
  const { note } = owner
  const presets = readOnlyPresets(dataDir)
  const waiting = new Set<string>()
  let stopped = false
  let gone: string | null = null
  let temp: string | null = null
  let hooks: { photoRunning(): void } | null = null
  /** The store checks the owner made of each done job, until the command asks for them. */
  const ownChecks = new Map<string, StoreCheck[]>()
  let checker: FileChecker | null = null
  /** Cancels sent at a stop, awaited before the command ends. */
  const cancels: Array<Promise<unknown>> = []

  const call = async (path: string, init: RequestInit = {}): Promise<Response> => {
    if (gone) throw new OwnerGone(gone)
    try {
      return await fetch(`${note.url}${path}`, { ...init, headers: { [OWNER_TOKEN_HEADER]: note.token, ...init.headers } })
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? errorText(err)
      gone = `The Clipdesk server on this data folder (pid ${note.pid}) stopped answering (${cause})`
      throw new OwnerGone(gone)
    }
  }

  return {
    presets: { lookup: presets.lookup, list: () => presets.list() },
    lanes: 4,
    loadsModel: false,
    start(h) {
      hooks = h
      h.modelReady() // the owner runs the model: nothing loads here
    },
    async submit(request, file): Promise<SubmitResult> {
      const form = new FormData()
      form.append('mode', request.mode)
      form.append('output_format', request.output_format)
      if (request.params !== null)
        form.append('params', typeof request.params === 'string' ? request.params : JSON.stringify(request.params))
      form.append('file', new Blob([new Uint8Array(file.bytes)]), basename(file.filename))
      const res = await call('/api/v1/upload', { method: 'POST', body: form }).catch((err: Error) => err)
      // The owner gone: the command sees `lost()` and stops the run.
      if (res instanceof OwnerGone) return { ok: false, code: 'unavailable', message: res.message, retryable: true }
      if (res instanceof Error) throw res
      const body = (await res.json().catch(() => null)) as {
        job_id?: string
        error?: { code: string; message: string; details?: Array<{ field: string; issue: string }> }
      } | null
      if (res.status === 202 && body?.job_id) return { ok: true, jobId: body.job_id }
      const e = body?.error ?? { code: 'unavailable', message: `The server answered ${res.status}.` }
      const details = e.details?.length ? ` (${e.details.map((d) => `${d.field}: ${d.issue}`).join('; ')})` : ''
      return { ok: false, code: e.code, message: `${e.message}${details}`, retryable: e.code === 'unavailable', details: e.details ?? [] }
    },
    async outcome(jobId, all): Promise<JobOutcome> {
      waiting.add(jobId)
      try {
        for (;;) {
          const res = await call(`/api/v1/status?job_id=${encodeURIComponent(jobId)}`)
          if (res.status === 404) return { state: 'missing' }
          const body = (await res.json()) as JobStatusBody
          if (body.status !== 'queued') hooks?.photoRunning()
          if (body.state === 'done') {
            ownChecks.set(jobId, body.checks ?? [])
            return await downloaded(jobId, body, all)
          }
          if (body.state === 'failed' || body.error) {
            const error = body.error ?? { code: 'job_failed', message: 'The job failed.' }
            return {
              state: 'failed',
              code: error.code === 'cancelled' ? 'cancelled' : (error.reason ?? error.code),
              message: error.message
            }
          }
          // Stopped (Ctrl-C): its cancel is on its way to the owner (`cancelWaiting`); this run ends.
          if (stopped) return { state: 'failed', code: 'cancelled', message: 'Stopped.' }
          await new Promise((r) => setTimeout(r, POLL_MS))
        }
      } catch (err) {
        if (err instanceof OwnerGone) return { state: 'failed', code: 'cancelled', message: err.message }
        throw err
      } finally {
        waiting.delete(jobId)
      }
    },
    async finished(jobId) {
      if (temp) await rm(join(temp, jobId), { recursive: true, force: true })
    },
    cancelWaiting() {
      stopped = true
      // The server's jobs stopped too (its app method; the app's listener has none, it finishes them).
      for (const id of waiting) {
        const init = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(id) }
        cancels.push(call('/api/app/jobCancel', init).catch(() => undefined))
      }
    },
    async checks(jobId, extra, written) {
      // The owner checked the store its preset names (the status's `checks`); a `--check` set is
      // checked here on the written file, the way `clipdesk check` does (`store-ready/checker.ts`).
      const own = ownChecks.get(jobId) ?? []
      ownChecks.delete(jobId)
      const more = extra.filter((s) => !own.some((c) => c.store === s.name))
      if (more.length === 0) return own
      checker ??= new FileChecker()
      return [...own, ...(await checker.check(written, basename(written), more)).checks]
    },
    lost: () => gone,
    async close() {
      await Promise.all(cancels)
      await checker?.close()
      presets.close()
      if (temp) await rm(temp, { recursive: true, force: true })
    }
  }

  /** The job's results to write, fetched from their signed addresses into this run's temp folder. */
  async function downloaded(jobId: string, body: JobStatusBody, all: boolean): Promise<JobOutcome> {
    // Each address is `/api/v1/results/<job>/<variation>.<ext>?expires=…&sig=…` on the owner.
    const made = Object.entries(body.final_urls ?? {}).flatMap(([variation, url]) => {
      const address = url ? new URL(url) : null
      const ext = address?.pathname.slice(address.pathname.lastIndexOf('.') + 1) ?? ''
      // Both become a file name in this run's temp folder: letters only, as the owner's route has them.
      return address && SAFE_PART.test(ext) && SAFE_PART.test(variation) ? [{ variation: variation as Variation, ext, address, url }] : []
    })
    const primary = made.find((m) => m.url === body.final_url)?.variation ?? null
    const chosen = resultsToWrite(made, primary, all)
    temp ??= await mkdtemp(join(tmpdir(), 'clipdesk-process-'))
    const dir = join(temp, jobId)
    await mkdir(dir, { recursive: true })
    const results = []
    for (const r of chosen) {
      const res = await call(r.address.pathname + r.address.search)
      if (res.status !== 200) return { state: 'failed', code: 'job_failed', message: `The result could not be fetched (${res.status}).` }
      const path = join(dir, `${r.variation}.${r.ext}`)
      await writeFile(path, Buffer.from(await res.arrayBuffer()))
      results.push({ variation: r.variation, ext: r.ext, path })
    }
    return {
      state: 'done',
      results,
      warnings: warningLines(
        body.warnings ?? {},
        results.map((r) => r.variation)
      ),
      model: body.model ?? null,
      device: body.device ?? null,
      uncertainty: body.uncertainty ?? null,
      secondLook: body.second_look ?? null
    }
  }
}
