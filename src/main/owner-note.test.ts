/**
 * The owner note a server leaves in its data folder: readable by the user alone, read back as
 * written, anything else (not JSON, a field missing, an address off this machine) read as no
 * note, and removed only by the process whose token it holds.
 */
import { mkdtempSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { newOwnerToken, OWNER_NOTE_FILE, readOwnerNote, removeOwnerNote, writeOwnerNote } from './owner-note'

const dir = (): string => mkdtempSync(join(tmpdir(), 'clipdesk-owner-note-'))

describe('owner note', () => {
  it('is written with mode 0600 and read back as written', () => {
    const d = dir()
    const note = { pid: 4321, url: 'http://127.0.0.1:7878', token: newOwnerToken(), paused: true }
    writeOwnerNote(d, note)
    expect(statSync(join(d, OWNER_NOTE_FILE)).mode & 0o777).toBe(0o600)
    expect(readOwnerNote(d)).toEqual(note)
    expect(note.token).toMatch(/^[0-9a-f]{64}$/)
  })

  it('reads anything but a note as none', () => {
    const d = dir()
    expect(readOwnerNote(d)).toBeNull() // no file
    for (const body of [
      'not json',
      JSON.stringify({ url: 'http://127.0.0.1:1', token: 't' }),
      JSON.stringify({ pid: 1, url: 'http://example.com:80', token: 't' }),
      JSON.stringify({ pid: 1, url: 'http://127.0.0.1:80/path', token: 't' }),
      JSON.stringify({ pid: 1, url: 'http://127.0.0.1:80', token: 7 })
    ]) {
      writeFileSync(join(d, OWNER_NOTE_FILE), body)
      expect(readOwnerNote(d), body).toBeNull()
    }
  })

  it('is removed by its own process only', () => {
    const d = dir()
    const mine = newOwnerToken()
    writeOwnerNote(d, { pid: 1, url: 'http://127.0.0.1:1', token: newOwnerToken(), paused: false })
    removeOwnerNote(d, mine) // a later server's note: left alone
    expect(readOwnerNote(d)).not.toBeNull()
    writeOwnerNote(d, { pid: 1, url: 'http://127.0.0.1:1', token: mine, paused: false })
    removeOwnerNote(d, mine)
    expect(readOwnerNote(d)).toBeNull()
  })
})
