/**
 * End to end, every result can be seen: a batch written as PSD shows each file's thumbnail and
 * its before/after view like a PNG batch (the PSD's composite, rendered in the decode sandbox).
 * Screenshots of the PSD batch with its thumbnails at 1280×800 and 900×700, light and dark.
 * Built renderer in Chromium against a real `clipdesk serve` (real model).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServeProcess } from '../helpers/cli'
import { scenePng } from '../helpers/fixtures'
import { closeApp, openApp } from './app-session'
import { hasChromium, SKIP_REASON } from './chromium'
import { screenshots } from './views'

const title = hasChromium
  ? 'a PSD batch has thumbnails and a before/after, in Chromium against clipdesk serve'
  : `PSD previews — ${SKIP_REASON}`

describe.skipIf(!hasChromium)(title, () => {
  let root: string
  let serve: ServeProcess
  let context: BrowserContext
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    ;({ root, serve, context, page } = await openApp('clipdesk-e2e-psd-', pageErrors))
  })
  afterAll(() => closeApp({ root, serve, context }))

  /** Every thumbnail of the list has loaded an image (a 404 would leave it hidden with no size). */
  const thumbsLoaded = (): Promise<boolean> =>
    page.evaluate(() => {
      const imgs: any[] = [...(globalThis as any).document.querySelectorAll('[data-testid=batch-item] img.thumb')]
      return imgs.length === 2 && imgs.every((i) => i.complete && i.naturalWidth > 0 && i.style.visibility !== 'hidden')
    })

  it('shows the thumbnails and the before/after of PSD results', async () => {
    const dir = join(root, 'in', 'shoot')
    mkdirSync(dir, { recursive: true })
    const png = await scenePng()
    writeFileSync(join(dir, 'ball.png'), png)
    writeFileSync(join(dir, 'ball-small.png'), await sharp(png).resize(240).png().toBuffer())
    await page.getByTestId('folder-input').setInputFiles(dir)
    await page.getByTestId('batch-format').selectOption('psd')
    await page.getByTestId('batch-destination').fill(join(root, 'out'))
    await page.getByTestId('start-batch').click()
    await expect.poll(() => page.getByTestId('batch-outcome').textContent(), { timeout: 240_000, interval: 250 }).toBe('Done: all 2 files')
    await expect.poll(() => page.locator('[data-testid=batch-item][data-state=done]').count()).toBe(2)
    await expect.poll(thumbsLoaded, { timeout: 30_000 }).toBe(true)
    await screenshots(
      page,
      'psd-batch',
      () => page.getByTestId('batch-outcome').scrollIntoViewIfNeeded(),
      async () => {
        await expect.poll(thumbsLoaded, { timeout: 30_000 }).toBe(true)
      }
    )

    await page.getByTestId('open-viewer').first().click()
    await page.getByTestId('viewer').waitFor()
    await page.waitForFunction(
      () => {
        const imgs: any[] = [...(globalThis as any).document.querySelectorAll('[data-testid=viewer] img')]
        return imgs.length === 2 && imgs.every((i) => i.complete && i.naturalWidth > 0)
      },
      null,
      { timeout: 60_000 }
    )
    await page.keyboard.press('Escape')
    expect(pageErrors).toEqual([])
  })
})
