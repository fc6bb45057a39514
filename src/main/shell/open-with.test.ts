/**
 * The Electron handlers of results that leave the app, tested where Electron itself cannot run
 * (its binary is not installed here): each platform's "Open with…" path, with the application
 * dialog answered in code and the launch done for real (Linux) or recorded (other platforms).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { applicationDialog, launchDetached, openWith, type OpenWithDeps } from './open-with'

const dir = mkdtempSync(join(tmpdir(), 'clipdesk-open-with-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function recording(platform: NodeJS.Platform, picked: string | null): { deps: OpenWithDeps; launched: [string, string[]][] } {
  const launched: [string, string[]][] = []
  return {
    launched,
    deps: {
      platform,
      pickApplication: async () => picked,
      launch: async (command, args) => {
        launched.push([command, args])
        return ''
      }
    }
  }
}

describe('Open with…', () => {
  it("Windows: the system's own chooser, no dialog of ours", async () => {
    const { deps, launched } = recording('win32', null)
    expect(await openWith('C:\\out\\photo.png', deps)).toBe('')
    expect(launched).toEqual([['rundll32.exe', ['shell32.dll,OpenAs_RunDLL', 'C:\\out\\photo.png']]])
  })
  it('macOS: the picked application bundle, by open -a', async () => {
    const { deps, launched } = recording('darwin', '/Applications/Adobe Photoshop 2026.app')
    expect(await openWith('/out/photo.png', deps)).toBe('')
    expect(launched).toEqual([['open', ['-a', '/Applications/Adobe Photoshop 2026.app', '/out/photo.png']]])
    expect(applicationDialog('darwin')).toMatchObject({ defaultPath: '/Applications', filters: [{ extensions: ['app'] }] })
  })
  it('Linux: a desktop entry by gio launch, a program given the file', async () => {
    const entry = recording('linux', '/usr/share/applications/gimp.desktop')
    expect(await openWith('/out/photo.png', entry.deps)).toBe('')
    expect(entry.launched).toEqual([['gio', ['launch', '/usr/share/applications/gimp.desktop', '/out/photo.png']]])
    const program = recording('linux', '/opt/krita/krita')
    await openWith('/out/photo.png', program.deps)
    expect(program.launched).toEqual([['/opt/krita/krita', ['/out/photo.png']]])
  })
  it('says so when no application is chosen, and launches nothing', async () => {
    const { deps, launched } = recording('linux', null)
    expect(await openWith('/out/photo.png', deps)).toBe('No application was chosen.')
    expect(launched).toEqual([])
  })
  it('starts the chosen program for real, detached, with the file', async () => {
    const program = join(dir, 'viewer.sh')
    const seen = join(dir, 'seen.txt')
    writeFileSync(program, `#!/bin/sh\nprintf '%s' "$1" > '${seen}'\n`)
    chmodSync(program, 0o755)
    const deps: OpenWithDeps = { platform: 'linux', pickApplication: async () => program, launch: launchDetached }
    expect(await openWith('/out/photo one.png', deps)).toBe('')
    await expect.poll(() => existsSync(seen) && readFileSync(seen, 'utf8')).toBe('/out/photo one.png')
  })
  it('says why a program could not start', async () => {
    expect(await launchDetached(join(dir, 'no-such-program'), ['x'])).toMatch(/could not be started: .*ENOENT/)
  })
})
