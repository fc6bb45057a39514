/**
 * The commands that change a data folder without running jobs (`clipdesk keys`, `presets`,
 * `models`) hold it while they run, as an engine would: one writer at a time on its database.
 * While `clipdesk serve` owns the folder (paused or not) they work through it: its app methods
 * (`/api/app/*`) with the owner token it left in `owner.json`, so the server stays the one
 * writer. While another process owns it (the app, a `clipdesk process` run) they are refused
 * with one line that says who and what to do instead.
 */
import { mkdirSync } from 'node:fs'
import type { IpcMethod } from '../../shared/ipc'
import { DataDirBusy, holdDataFolder } from '../engine/data-folder'
import { EngineError } from '../engine/errors'
import { OWNER_TOKEN_HEADER, readOwnerNote, type OwnerNote } from '../owner-note'
import { complain } from './print'
import { errorText } from '../../shared/errors'

/** One app method of the server that owns the folder; throws its refusal as an `EngineError`. */
export type OwnerApp = (method: IpcMethod, arg?: unknown) => Promise<unknown>

/**
 * Runs `work` with the folder held (`owner` null), or through the server that owns it (`owner`
 * its app methods); throws one line when another process owns it.
 */
export async function withDataFolder<T>(dataDir: string, command: string, work: (owner: OwnerApp | null) => Promise<T>): Promise<T> {
  mkdirSync(dataDir, { recursive: true })
  let hold: { release(): void }
  try {
    hold = holdDataFolder(dataDir, command)
  } catch (err) {
    if (!(err instanceof DataDirBusy)) throw err
    const note = readOwnerNote(dataDir)
    const pid = err.holder?.pid
    if (note && note.pid === pid && err.holder?.role === 'serve') {
      // Said on stderr: stdout stays the command's answer (a key, `--json`).
      complain(`Using the Clipdesk server running on this data folder (pid ${pid})`)
      return work(ownerApp(note))
    }
    const who = `another Clipdesk process${pid ? ` (pid ${pid}, ${err.holder?.role})` : ''} owns the data folder ${dataDir}`
    throw new Error(`${who}; use the app for this, or stop it and run \`clipdesk ${command}\` again`)
  }
  try {
    return await work(null)
  } finally {
    hold.release()
  }
}

function ownerApp(note: OwnerNote): OwnerApp {
  return async (method, arg) => {
    let res: Response
    try {
      res = await fetch(`${note.url}/api/app/${method}`, {
        method: 'POST',
        headers: { [OWNER_TOKEN_HEADER]: note.token, 'Content-Type': 'application/json' },
        body: JSON.stringify(arg ?? null)
      })
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? errorText(err)
      throw new Error(
        `the Clipdesk server on this data folder (pid ${note.pid}) does not answer (${cause}); run this again once it runs or has stopped`
      )
    }
    const body = (await res.json().catch(() => null)) as { error?: { code: string; message: string; details?: [] } } | null
    if (res.status === 200) return body
    const e = body?.error
    throw new EngineError((e?.code ?? 'internal_error') as never, e?.message ?? `The server answered ${res.status}.`, {
      details: e?.details
    })
  }
}
