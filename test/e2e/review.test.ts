/* eslint-disable @typescript-eslint/no-explicit-any -- callbacks run in the page; the Node project has no DOM types */
/**
 * End to end, the Batches screen says which cutouts to check (docs/review.md): a batch of a
 * photo the model is sure of and a photo with no subject (its cutout keeps nothing, so it is
 * to check) shows "1 to check" in the head, a "To check" badge on that row only, a "To check"
 * filter that lists it alone, and the most uncertain file first when sorted so.
 * Built renderer in Chromium against a real `clipdesk serve` (real model).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServeProcess } from '../helpers/cli'
import { scenePng } from '../helpers/fixtures'
import { openApp, closeApp } from './app-session'
import { hasChromium, SKIP_REASON } from './chromium'

const title = hasChromium ? 'cutouts to check on the Batches screen, in Chromium against clipdesk serve' : `cutouts to check — ${SKIP_REASON}`

describe.skipIf(!hasChromium)(title, () => {
  let root: string
  let serve: ServeProcess
  let context: BrowserContext
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    ;({ root, serve, context, page } = await openApp('clipdesk-e2e-review-', pageErrors))
  })
  afterAll(() => closeApp({ root, serve, context }))

  const names = (): Promise<string[]> => page.getByTestId('batch-item').locator('.name').allTextContents()

  it('counts, marks, filters and sorts the cutouts to check', async () => {
    const dir = join(root, 'in', 'shoot')
    mkdirSync(dir, { recursive: true })
    // "a-ball" is added first: sorted by uncertainty, the empty grey cutout must move above it.
    writeFileSync(join(dir, 'a-ball.png'), await scenePng())
    writeFileSync(join(dir, 'b-grey.png'), await sharp({ create: { width: 96, height: 64, channels: 3, background: '#808080' } }).png().toBuffer())
    await page.getByTestId('folder-input').setInputFiles(dir)
    await page.getByTestId('batch-destination').fill(join(root, 'out'))
    await page.getByTestId('start-batch').click()
    await expect.poll(() => page.getByTestId('batch-outcome').textContent(), { timeout: 240_000 }).toBe('Done: all 2 files')

    // The head says how many, and the list marks that one row only.
    expect(await page.getByTestId('batch-to-check').textContent()).toBe('1 to check')
    await expect.poll(() => page.getByTestId('item-to-check').count()).toBe(1)
    const marked = page.getByTestId('batch-item').filter({ has: page.getByTestId('item-to-check') })
    expect(await marked.locator('.name').textContent()).toBe('b-grey.png')
    expect(await marked.getByTestId('item-to-check').textContent()).toBe('To check')
    expect(await names()).toEqual(['a-ball.png', 'b-grey.png'])

    // The filter lists it alone; "All files" brings the rest back.
    const filter = page.getByTestId('filter-to-check')
    expect(await filter.textContent()).toBe('To check (1)')
    await filter.click()
    expect(await filter.getAttribute('aria-pressed')).toBe('true')
    await expect.poll(names).toEqual(['b-grey.png'])
    await page.getByRole('button', { name: 'All files' }).click()
    await expect.poll(names).toEqual(['a-ball.png', 'b-grey.png'])

    // Most uncertain first.
    await page.getByTestId('list-sort').selectOption('uncertainty')
    await expect.poll(names).toEqual(['b-grey.png', 'a-ball.png'])
    await page.getByTestId('list-sort').selectOption('added')
    await expect.poll(names).toEqual(['a-ball.png', 'b-grey.png'])

    // The head's count is a way in: it shows the files to check, most uncertain first.
    await page.getByTestId('batch-to-check').click()
    await expect.poll(names).toEqual(['b-grey.png'])
    expect(await page.getByTestId('list-sort').inputValue()).toBe('uncertainty')
    expect(pageErrors).toEqual([])
  })
})
