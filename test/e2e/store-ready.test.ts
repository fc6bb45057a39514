/**
 * End to end, a batch made with a store preset says which files the store takes
 * (docs/store-ready.md): choosing "Amazon" sets the format to JPEG, a product photo comes out
 * "Ready for Amazon", a product the photo cuts "Not ready for Amazon" with the reason beside it,
 * and the "Not ready" filter lists that file alone. Built renderer in Chromium against a real
 * `clipdesk serve` (real model).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServeProcess } from '../helpers/cli'
import { openApp, closeApp } from './app-session'
import { hasChromium, SKIP_REASON } from './chromium'

const title = hasChromium
  ? 'store-ready badges on the Batches screen, in Chromium against clipdesk serve'
  : `store-ready badges — ${SKIP_REASON}`

/** A shaded red ball (the product) on white, its centre at (cx, cy) and radius r, in a w×h photo. */
function productPng(w: number, h: number, cx: number, cy: number, r: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
  <defs><radialGradient id="ball" cx="0.35" cy="0.3" r="0.75"><stop offset="0" stop-color="#ff8a7a"/><stop offset="0.5" stop-color="#d81b0c"/><stop offset="1" stop-color="#5a0803"/></radialGradient></defs>
  <rect width="100%" height="100%" fill="#f4f4f4"/>
  <circle cx="${cx}" cy="${cy}" r="${r}" fill="url(#ball)"/>
</svg>`
  return sharp(Buffer.from(svg)).png().toBuffer()
}

describe.skipIf(!hasChromium)(title, () => {
  let root: string
  let serve: ServeProcess
  let context: BrowserContext
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    ;({ root, serve, context, page } = await openApp('clipdesk-e2e-store-', pageErrors))
  })
  afterAll(() => closeApp({ root, serve, context }))

  it('Amazon: JPEG by default, "Ready for Amazon" and "Not ready" with the reason, and a filter for them', {
    timeout: 420_000
  }, async () => {
    const dir = join(root, 'in', 'shop')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'a-whole.png'), await productPng(1400, 1200, 700, 600, 520))
    // The ball runs out of the photo at the bottom: a store wants the whole product.
    writeFileSync(join(dir, 'b-cut.png'), await productPng(1400, 1200, 700, 900, 520))
    await page.getByTestId('folder-input').setInputFiles(dir)
    await page.getByTestId('batch-preset').selectOption('amazon')
    expect(await page.getByTestId('batch-format').inputValue()).toBe('jpg')
    await page.getByTestId('batch-destination').fill(join(root, 'out'))
    await page.getByTestId('start-batch').click()
    await expect.poll(() => page.getByTestId('batch-outcome').textContent(), { timeout: 300_000 }).toBe('Done: all 2 files')

    const row = (name: string) => page.getByTestId('batch-item').filter({ has: page.locator('.name', { hasText: name }) })
    await expect.poll(() => row('a-whole.png').getByTestId('store-badge').textContent()).toBe('Ready for Amazon')
    expect(await row('b-cut.png').getByTestId('store-badge').textContent()).toBe('Not ready for Amazon')
    expect(await row('b-cut.png').getByTestId('store-reason').textContent()).toContain(
      "the product is cut by the photo's edge (bottom); Amazon wants the whole product"
    )

    await page.getByTestId('filter-not-ready').click()
    await expect.poll(() => page.getByTestId('batch-item').locator('.name').allTextContents()).toEqual(['b-cut.png'])
    expect(await page.getByTestId('filter-not-ready').textContent()).toBe('Not ready (1)')
    expect(pageErrors).toEqual([])
  })
})
