/**
 * A folder this process cannot write in, for the tests of plain-words problems. Permission
 * bits bind an ordinary user (a temp folder made read-only); root writes through them, so as
 * root a folder of the system that refuses every write is used instead (`/sys`, mounted
 * read-only or write-protected in containers and on desktops alike). Null when neither works
 * here: the caller says so.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

function refusesWrites(dir: string): boolean {
  const probe = join(dir, `.clipdesk-probe-${process.pid}`)
  try {
    writeFileSync(probe, '')
    rmSync(probe, { force: true })
    return false
  } catch {
    return true
  }
}

export function readOnlyFolder(): string | null {
  if (process.getuid?.() !== 0) {
    const dir = mkdtempSync(join(tmpdir(), 'clipdesk-ro-'))
    chmodSync(dir, 0o555)
    if (refusesWrites(dir)) return dir
  }
  return refusesWrites('/sys') ? '/sys' : null
}
