/**
 * The note a server leaves in its data folder so that a command started beside it (`clipdesk
 * process`) can work through it instead of opening the folder's database as a second writer:
 * `owner.json`, with the server's pid, its address and an owner token that lets a local client
 * submit jobs as the owner's own (no key, no credit, like a batch). The file is readable by the
 * user alone (mode 0600): whoever can read it can already read the whole data folder.
 *
 * It is information, never the lock: a reader trusts it only while the data folder's lock is
 * held by the pid it names (`engine/data-folder.ts`, `folderHolder`); one a crash left behind is
 * ignored, and replaced by the next server.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const OWNER_NOTE_FILE = 'owner.json'
/** The header a local client sends the owner token in. */
export const OWNER_TOKEN_HEADER = 'x-clipdesk-owner'

export interface OwnerNote {
  pid: number
  /** The server's `/api/v1` listener, `http://127.0.0.1:<port>`. */
  url: string
  token: string
  /** Started with `--paused`: it keeps jobs queued and runs none. */
  paused: boolean
}

/** A fresh owner token (256 bits, hex). */
export function newOwnerToken(): string {
  return randomBytes(32).toString('hex')
}

/** Writes the note (temp name, mode 0600, rename: a reader never sees half of it, nor anyone else any of it). */
export function writeOwnerNote(dataDir: string, note: OwnerNote): void {
  const file = join(dataDir, OWNER_NOTE_FILE)
  const temp = `${file}.${process.pid}.tmp`
  writeFileSync(temp, JSON.stringify(note), { mode: 0o600 })
  renameSync(temp, file)
}

/** Removes the note if it is this process's (a later server's note is left alone). */
export function removeOwnerNote(dataDir: string, token: string): void {
  if (readOwnerNote(dataDir)?.token === token) rmSync(join(dataDir, OWNER_NOTE_FILE), { force: true })
}

/** The note as written, or null when there is none or it is not one. */
export function readOwnerNote(dataDir: string): OwnerNote | null {
  try {
    const n = JSON.parse(readFileSync(join(dataDir, OWNER_NOTE_FILE), 'utf8')) as Partial<OwnerNote>
    if (typeof n.pid !== 'number' || typeof n.url !== 'string' || typeof n.token !== 'string') return null
    if (!/^http:\/\/127\.0\.0\.1:\d{1,5}$/.test(n.url)) return null
    return { pid: n.pid, url: n.url, token: n.token, paused: n.paused === true }
  } catch {
    return null
  }
}
