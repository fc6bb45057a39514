/**
 * End to end: the "Watched folders" screen, built renderer in Chromium against a real
 * `clipdesk serve` (real model). Adds a folder through the form (a bad template is refused on
 * its field), shows a file the engine refuses in the failed list, then the same file replaced
 * by a photo processed to done, live through the `watch` event; pause and remove.
 * Screenshots go to test-results/e2e/.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServe, type ServeProcess } from '../helpers/cli'
import { tempDir } from '../helpers/engine'
import { scenePng } from '../helpers/fixtures'
import { ARTIFACTS, hasChromium, launchChromium, SKIP_REASON } from './chromium'

const title = hasChromium ? 'the Watched folders screen in Chromium against clipdesk serve' : `the Watched folders screen — ${SKIP_REASON}`

describe.skipIf(!hasChromium)(title, () => {
  let root: string
  let inbox: string
  let serve: ServeProcess
  let context: BrowserContext
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    if (!existsSync(join(import.meta.dirname, '../../out/renderer/index.html')))
      throw new Error('the renderer is not built: run `npm run build` first')
    root = tempDir('clipdesk-e2e-watch-')
    inbox = join(root, 'hot folder')
    mkdirSync(inbox)
    serve = await startServe(join(root, 'data'))
    context = await launchChromium()
    page = context.pages()[0] ?? (await context.newPage())
    page.on('pageerror', (err) => pageErrors.push(err.message))
    await page.goto(`http://127.0.0.1:${serve.port}/`)
    await page.getByTestId('api-key-input').fill(serve.key!)
    await page.getByTestId('connect').click()
    await page.getByTestId('nav-watch').click()
  })

  afterAll(async () => {
    await context?.close()
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGTERM')
      await serve.exited
    }
    if (root) rmSync(root, { recursive: true, force: true })
  })

  it('adds a folder through the form, refusing a bad template on its field', async () => {
    await page.getByTestId('watch-add').click()
    await page.getByTestId('watch-path').fill(inbox)
    await page.getByTestId('watch-template').fill('{nom}.{ext}')
    await expect.poll(() => page.getByTestId('watch-form').textContent()).toContain('unknown token {nom}')
    expect(await page.getByTestId('watch-save').isDisabled()).toBe(true)
    await page.getByTestId('watch-template').fill('{name}-{variation}.{ext}')
    await page.getByTestId('watch-save').click()
    const card = page.locator('[data-testid^=watch-folder-]')
    await card.waitFor()
    await expect.poll(() => card.getByTestId('watch-state').textContent()).toBe('Watching')
    expect(await card.textContent()).toContain(`${inbox}/clipdesk-out/{name}-{variation}.{ext}`)
  })

  it('lists a refused file with its error, then processes it once replaced by a photo', async () => {
    const card = page.locator('[data-testid^=watch-folder-]')
    writeFileSync(join(inbox, 'photo.png'), 'not an image')
    await expect.poll(() => card.getByTestId('watch-counts').textContent(), { timeout: 60_000 }).toContain('Failed 1')
    expect(await card.getByRole('list', { name: 'Failed files' }).textContent()).toContain('not an image')
    await page.screenshot({ path: join(ARTIFACTS, 'watch-1-failed.png') })

    writeFileSync(join(inbox, 'photo.png'), await scenePng())
    await expect.poll(() => card.getByTestId('watch-counts').textContent(), { timeout: 120_000 }).toContain('Done 1')
    expect(await card.getByTestId('watch-counts').textContent()).toContain('Failed 0')
    const out = join(inbox, 'clipdesk-out', 'photo-cut-out.png')
    expect((await sharp(out).metadata()).channels).toBe(4)
    await card.locator('summary', { hasText: 'Recent activity' }).click()
    expect(await card.getByTestId('watch-recent').textContent()).toContain('photo-cut-out.png')
    await page.screenshot({ path: join(ARTIFACTS, 'watch-2-done.png') })
  })

  it('pauses, resumes and removes the folder', async () => {
    const card = page.locator('[data-testid^=watch-folder-]')
    await card.getByTestId('watch-toggle').click()
    await expect.poll(() => card.getByTestId('watch-state').textContent()).toBe('Paused')
    await card.getByTestId('watch-toggle').click()
    await expect.poll(() => card.getByTestId('watch-state').textContent()).toBe('Watching')
    page.once('dialog', (d) => void d.accept())
    await card.getByRole('button', { name: 'Remove' }).click()
    await expect.poll(() => page.locator('[data-testid^=watch-folder-]').count()).toBe(0)
    expect(pageErrors).toEqual([])
  })
})
