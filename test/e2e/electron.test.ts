/**
 * The same flow as the Chromium test, in the desktop window: Electron with the built main,
 * preload and renderer, IPC underneath. Electron's binary cannot be downloaded on every
 * machine (nor is there always a display): the test then reports a clear skip.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { _electron, type ElectronApplication, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IPC_METHODS } from '../../src/shared/ipc'
import { tempDir } from '../helpers/engine'
import { ARTIFACTS } from './chromium'
import { createAndRevokeKey, createPreset, expectOutputs, expectProgressMoved, runBatch, useBeforeAfter, writeInputs } from './flow'

const ROOT = join(import.meta.dirname, '../..')

/** The Electron binary if it is installed; never triggers its download (requiring `electron` would). */
function electronBinary(): string | null {
  const pkg = join(ROOT, 'node_modules', 'electron')
  const pathFile = join(pkg, 'path.txt')
  if (!existsSync(pathFile)) return null
  const name = readFileSync(pathFile, 'utf8').trim()
  const bin = process.env.ELECTRON_OVERRIDE_DIST_PATH ? join(process.env.ELECTRON_OVERRIDE_DIST_PATH, name) : join(pkg, 'dist', name)
  return existsSync(bin) ? bin : null
}

const binary = electronBinary()
const noDisplay = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY
const skipReason = !binary
  ? "SKIPPED: Electron's binary is not installed (node_modules/electron/dist); it cannot be downloaded here"
  : noDisplay
    ? 'SKIPPED: no display for Electron (set DISPLAY, e.g. run under xvfb-run)'
    : null
if (skipReason) console.warn(`e2e Electron tests: ${skipReason}`)

describe.skipIf(skipReason !== null)(skipReason ? `the desktop app in Electron — ${skipReason}` : 'the desktop app in Electron', () => {
  let root: string
  let dataDir: string
  let app: ElectronApplication
  let page: Page

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `electron-${name}`) })

  async function launch(): Promise<void> {
    app = await _electron.launch({
      executablePath: binary!,
      args: [join(ROOT, 'out/main/index.js'), ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
      // One folder for settings and data (see src/main/index.ts).
      env: { ...process.env, CLIPDESK_DATA_DIR: dataDir } as Record<string, string>
    })
    page = await app.firstWindow()
    await page.getByTestId('nav-batches').waitFor()
  }

  beforeAll(async () => {
    root = tempDir('clipdesk-electron-')
    dataDir = join(root, 'data')
    await launch()
  })

  afterAll(async () => {
    await app?.close()
    if (root) rmSync(root, { recursive: true, force: true })
  })

  it('isolates the renderer: contract only, no Node, no new windows', async () => {
    // These run in the page (this project's Node types have no DOM: its globals are typed loosely).
    expect(await page.evaluate(() => typeof (globalThis as any).require)).toBe('undefined')
    expect(await page.evaluate(() => typeof (globalThis as any).process)).toBe('undefined')
    expect(await page.evaluate(() => Object.keys((globalThis as any).api ?? {}).sort())).toEqual(
      [...IPC_METHODS, 'on', 'pathForFile'].sort()
    )
    expect(await page.evaluate(() => (globalThis as any).open('about:blank'))).toBeNull()
    // The IPC bridge exposes no raw ipcRenderer and cannot be replaced.
    expect(await page.evaluate(() => typeof (globalThis as any).api.ipcRenderer)).toBe('undefined')
  })

  it('runs a batch of a folder and a file to done, with progress up to 100 %', async () => {
    const out = join(root, 'out')
    const seen = await runBatch(page, await writeInputs(root), out, () => shot('1-batch-running.png'))
    await shot('2-batch-done.png')
    expectProgressMoved(seen)
    await expectOutputs(out)
  })

  it('opens the before/after view', async () => {
    await useBeforeAfter(page, () => shot('3-before-after.png'))
  })

  it('creates a preset with a live preview', async () => {
    await createPreset(page, 'electron-white', () => shot('4-preset.png'))
  })

  it('creates a key shown once, and revokes it', async () => {
    await createAndRevokeKey(page, 'electron script', async () => undefined)
  })

  it('finds the batch again after a restart', async () => {
    await app.close()
    await launch()
    await expect.poll(() => page.locator('[data-testid=batch-item][data-state=done]').count()).toBe(3)
  })
})
