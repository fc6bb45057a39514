/**
 * The session the machine's last run opened from an optimised copy (its file, SHA-256 and
 * session options), kept in the machine cache as `last-session.json`. `clipdesk process` and
 * `serve` hand it to the session worker they start ahead (`prestartSessionWorker`), which builds
 * that session while the command loads its modules; the engine's first session takes it when
 * it asks for the same one (docs/pipeline.md, "Cold start"). Nothing here is trusted further
 * than that: the worker checks the copy's SHA-256 before ONNX Runtime reads it, and a session
 * that is not asked for is released.
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { PreparedSession } from './session-worker'

const FILE = 'last-session.json'

/** Remembers the session just opened from `source`; a cache that cannot be written is left as it is. */
export function rememberSession(cacheDir: string, session: PreparedSession): void {
  const path = join(cacheDir, FILE)
  const scratch = `${path}.${randomUUID().slice(0, 8)}.tmp`
  try {
    mkdirSync(cacheDir, { recursive: true })
    writeFileSync(scratch, JSON.stringify(session))
    renameSync(scratch, path)
  } catch {
    rmSync(scratch, { force: true })
  }
}

/** The session last remembered in `cacheDir`, or null when there is none or it is not one we wrote. */
export function lastSession(cacheDir: string): PreparedSession | null {
  let value: unknown
  try {
    value = JSON.parse(readFileSync(join(cacheDir, FILE), 'utf8'))
  } catch {
    return null
  }
  if (typeof value !== 'object' || value === null) return null
  const { source, options } = value as Partial<PreparedSession>
  if (typeof source !== 'object' || source === null || source.kind !== 'file') return null
  if (typeof source.path !== 'string' || typeof source.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(source.sha256)) return null
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return null
  return { source: { kind: 'file', path: source.path, sha256: source.sha256 }, options }
}
