/**
 * The commands that change a data folder without running jobs (`clipdesk keys`, `presets`,
 * `models`) hold it while they run, as an engine would: one writer at a time on its database.
 * While another process owns the folder (the app, `clipdesk serve`, paused or not) they are
 * refused with one line that says who and what to do instead.
 */
import { mkdirSync } from 'node:fs'
import { DataDirBusy, holdDataFolder } from '../engine/data-folder'
import { readOwnerNote } from '../owner-note'

/** Runs `work` with the folder held; throws one line when another process owns it. */
export async function withDataFolder<T>(dataDir: string, command: string, work: () => Promise<T>): Promise<T> {
  mkdirSync(dataDir, { recursive: true })
  let hold: { release(): void }
  try {
    hold = holdDataFolder(dataDir, command)
  } catch (err) {
    if (!(err instanceof DataDirBusy)) throw err
    const note = readOwnerNote(dataDir)
    const pid = err.holder?.pid
    const who =
      err.holder?.role === 'serve' || (note && note.pid === pid)
        ? `the Clipdesk server (pid ${pid}) owns the data folder ${dataDir}`
        : `another Clipdesk process${pid ? ` (pid ${pid}, ${err.holder?.role})` : ''} owns the data folder ${dataDir}`
    const where = note && note.pid === pid ? ` (${note.url}/, signed in with an owner key)` : ''
    throw new Error(`${who}; use its app for this${where}, or stop it and run \`clipdesk ${command}\` again`)
  }
  try {
    return await work()
  } finally {
    hold.release()
  }
}
