/** Small file and process helpers of the watched-folders service. */
import type { Stats } from 'node:fs'
import { stat } from 'node:fs/promises'
import { posix } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { WatchFileRecord } from './store'

export async function statFile(path: string): Promise<Stats | null> {
  const st = await stat(path).catch(() => null)
  return st?.isFile() ? st : null
}

/**
 * Resolves once the file's size and modification time stayed the same for `stableMs`;
 * null when it went away, 'empty' when it stayed empty (a later write pokes it again).
 */
export async function waitStable(
  abs: string,
  o: { pollMs: number; stableMs: number; signal: AbortSignal }
): Promise<Stats | null | 'empty'> {
  let prev = await statFile(abs)
  let since = Date.now()
  for (;;) {
    await sleep(o.pollMs, undefined, { signal: o.signal })
    const cur = await statFile(abs)
    if (!cur) return null
    if (!prev || cur.size !== prev.size || cur.mtimeMs !== prev.mtimeMs) {
      prev = cur
      since = Date.now()
      continue
    }
    if (Date.now() - since >= o.stableMs) return cur.size === 0 ? 'empty' : cur
  }
}

/** The engine job's source name for a submission: unique, so a crash between submit and record is recoverable. */
export function submissionName(row: Pick<WatchFileRecord, 'token' | 'relPath'>): string {
  return `watch/${row.token}/${posix.basename(row.relPath)}`
}
