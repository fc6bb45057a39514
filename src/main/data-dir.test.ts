import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { defaultOutputDir } from './data-dir'

const home = mkdtempSync(join(tmpdir(), 'clipdesk-home-'))
afterAll(() => rmSync(home, { recursive: true, force: true }))

describe('the default destination of batches is a folder the user sees', () => {
  it('is Clipdesk in the desktop Pictures folder, else ~/Pictures, ~/Documents, the home folder; never the data folder', () => {
    expect(defaultOutputDir('/Users/me/Pictures', home)).toBe('/Users/me/Pictures/Clipdesk')
    expect(defaultOutputDir(undefined, home)).toBe(join(home, 'Clipdesk'))
    mkdirSync(join(home, 'Documents'))
    expect(defaultOutputDir(undefined, home)).toBe(join(home, 'Documents', 'Clipdesk'))
    mkdirSync(join(home, 'Pictures'))
    expect(defaultOutputDir(undefined, home)).toBe(join(home, 'Pictures', 'Clipdesk'))
  })
})
