/**
 * End to end, the Batches screen says which cutouts to check and how urgently (docs/review.md):
 * a batch of a photo the model is sure of, a photo with no subject (its cutout keeps nothing, so
 * it is "Worth a look") and clutter the model takes scattered parts of ("Likely wrong") shows "2
 * to check (1 likely wrong)" in the head, each level's badge with its score on its row, filters
 * by level that list each alone, and the most uncertain file first when sorted so. Then the grey
 * file is touched up and saved: its row says "Touched up", it leaves the "To check" list and the
 * head's count, and the "Touched up" filter lists it.
 * Built renderer in Chromium against a real `clipdesk serve` (real model).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServeProcess } from '../helpers/cli'
import { clutterPng, scenePng } from '../helpers/fixtures'
import { WORTH_A_LOOK } from '../../src/shared/review'
import { openApp, closeApp } from './app-session'
import { hasChromium, SKIP_REASON } from './chromium'

const title = hasChromium
  ? 'cutouts to check on the Batches screen, in Chromium against clipdesk serve'
  : `cutouts to check — ${SKIP_REASON}`

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

  it('counts, marks, filters and sorts the cutouts to check by level; a saved touch-up leaves the list', { timeout: 420_000 }, async () => {
    const dir = join(root, 'in', 'shoot')
    mkdirSync(dir, { recursive: true })
    // "a-ball" is added first: sorted by uncertainty, the empty grey cutout must move above it.
    writeFileSync(join(dir, 'a-ball.png'), await scenePng())
    writeFileSync(
      join(dir, 'b-grey.png'),
      await sharp({ create: { width: 96, height: 64, channels: 3, background: '#808080' } })
        .png()
        .toBuffer()
    )
    writeFileSync(join(dir, 'c-clutter.png'), await clutterPng())
    await page.getByTestId('folder-input').setInputFiles(dir)
    await page.getByTestId('batch-destination').fill(join(root, 'out'))
    await page.getByTestId('start-batch').click()
    await expect.poll(() => page.getByTestId('batch-outcome').textContent(), { timeout: 240_000 }).toBe('Done: all 3 files')

    // The head says how many, and the list marks those rows only, each with its level and score.
    expect(await page.getByTestId('batch-to-check').textContent()).toBe('2 to check (1 likely wrong)')
    await expect.poll(() => page.getByTestId('review-badge').count()).toBe(2)
    const row = (name: string) => page.getByTestId('batch-item').filter({ has: page.locator('.name', { hasText: name }) })
    const grey = row('b-grey.png')
    expect(await grey.getByTestId('review-badge').textContent()).toBe(`Worth a look ${WORTH_A_LOOK.toFixed(2)}`)
    expect(await grey.getByTestId('review-badge').getAttribute('data-level')).toBe('worth-a-look')
    const clutter = row('c-clutter.png').getByTestId('review-badge')
    expect(await clutter.getAttribute('data-level')).toBe('likely-wrong')
    expect(await clutter.textContent()).toMatch(/^Likely wrong (0\.9\d|1\.00)$/)
    expect(await row('a-ball.png').getByTestId('review-badge').count()).toBe(0)
    expect(await names()).toEqual(['a-ball.png', 'b-grey.png', 'c-clutter.png'])

    // The filters list each level alone; a filter with no file offers no button; "All files" brings the rest back.
    const filter = page.getByTestId('filter-to-check')
    expect(await filter.textContent()).toBe('To check (2)')
    expect(await page.getByTestId('filter-touched-up').count()).toBe(0)
    await filter.click()
    expect(await filter.getAttribute('aria-pressed')).toBe('true')
    await expect.poll(names).toEqual(['b-grey.png', 'c-clutter.png'])
    const wrong = page.getByTestId('filter-likely-wrong')
    expect(await wrong.textContent()).toBe('Likely wrong (1)')
    await wrong.click()
    expect(await wrong.getAttribute('aria-pressed')).toBe('true')
    await expect.poll(names).toEqual(['c-clutter.png'])
    const look = page.getByTestId('filter-worth-a-look')
    expect(await look.textContent()).toBe('Worth a look (1)')
    await look.click()
    await expect.poll(names).toEqual(['b-grey.png'])
    await page.getByRole('button', { name: 'All files' }).click()
    await expect.poll(names).toEqual(['a-ball.png', 'b-grey.png', 'c-clutter.png'])

    // Most uncertain first.
    await page.getByTestId('list-sort').selectOption('uncertainty')
    await expect.poll(names).toEqual(['c-clutter.png', 'b-grey.png', 'a-ball.png'])
    await page.getByTestId('list-sort').selectOption('added')
    await expect.poll(names).toEqual(['a-ball.png', 'b-grey.png', 'c-clutter.png'])

    // The head's count is a way in: it shows the files to check, most uncertain first.
    await page.getByTestId('batch-to-check').click()
    await expect.poll(names).toEqual(['c-clutter.png', 'b-grey.png'])
    expect(await page.getByTestId('list-sort').inputValue()).toBe('uncertainty')
    const marked = grey

    // Touched up and saved (a Keep stroke over the middle): the file leaves "to check".
    await marked.getByTestId('touch-up').click()
    const canvas = page.getByTestId('touchup-canvas')
    await canvas.waitFor()
    await expect.poll(() => page.getByTestId('touchup-status').getAttribute('data-updating'), { timeout: 60_000 }).toBe('no')
    await page.getByTestId('touchup-keep').click()
    const box = (await canvas.boundingBox())!
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.5)
    await page.mouse.down()
    for (let k = 1; k <= 8; k++) await page.mouse.move(box.x + box.width * (0.3 + 0.05 * k), box.y + box.height * 0.5)
    await page.mouse.up()
    await expect
      .poll(() =>
        page
          .getByTestId('touchup')
          .getByText(/\d+ strokes?/)
          .textContent()
      )
      .toContain('1 stroke')
    await expect.poll(() => page.getByTestId('touchup-status').getAttribute('data-updating'), { timeout: 60_000 }).toBe('no')
    await page.getByTestId('touchup-save').click()
    await expect.poll(() => page.getByTestId('touchup-saved').textContent(), { timeout: 120_000 }).toContain('b-grey.prev-1.png')
    await page.getByTestId('touchup-cancel').click()
    await expect.poll(() => page.getByTestId('touchup').count()).toBe(0)

    // The "To check" list the head opened no longer has it, and the head no longer counts it.
    await expect.poll(names).toEqual(['c-clutter.png'])
    expect(await page.getByTestId('batch-to-check').textContent()).toBe('1 to check (1 likely wrong)')
    expect(await page.getByTestId('filter-worth-a-look').count()).toBe(0)
    expect(await page.getByTestId('batch-touched-up').textContent()).toBe('1 touched up')
    // Its row says so, and the "Touched up" filter lists it.
    await page.getByTestId('filter-touched-up').click()
    await expect.poll(names).toEqual(['b-grey.png'])
    expect(await page.getByTestId('review-badge').textContent()).toBe('Touched up')
    expect(pageErrors).toEqual([])
  })
})
