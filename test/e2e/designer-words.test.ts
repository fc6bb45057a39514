/**
 * End to end, the words and shapes a designer meets: a preset named with spaces ("Shop
 * Beige", used as `shop-beige`) and a colour by name, its editor's preview beside the controls
 * showing the whole output frame, cards that hold any name with Delete on a line of its own;
 * the designer's names for variations and modes on every screen; a cropping preset's
 * before/after comparing the same framing, Esc returning focus to the button that opened it.
 * At 1280×800 and 900×700, light and dark. Built renderer in Chromium against `clipdesk serve`.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MODE_LABEL, VARIATION_LABEL } from '../../src/shared/vocabulary'
import type { ServeProcess } from '../helpers/cli'
import { scenePng } from '../helpers/fixtures'
import { openApp, closeApp } from './app-session'
import { hasChromium, SKIP_REASON } from './chromium'
import { box, screenshots } from './views'

const title = hasChromium ? 'presets and the designer vocabulary, in Chromium against clipdesk serve' : `designer words — ${SKIP_REASON}`

/** Developer words that must not reach a designer's screen. */
const DEVELOPER_WORDS = [
  'preset/params',
  'Primary (final_url)',
  'final_url',
  'As a parameter string',
  'Parameter string',
  'shadowTop',
  'medium · cpu',
  'Invalid input'
]

const intersects = (a: { x: number; y: number; width: number; height: number }, b: typeof a): boolean =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height

describe.skipIf(!hasChromium)(title, () => {
  let root: string
  let serve: ServeProcess
  let context: BrowserContext
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    ;({ root, serve, context, page } = await openApp('clipdesk-e2e-words-', pageErrors))
  })
  afterAll(() => closeApp({ root, serve, context }))

  it('makes a preset named with spaces and a colour by name; the preview sits beside the controls and shows the whole frame', async () => {
    await page.getByTestId('nav-presets').click()
    await page.getByTestId('new-preset').click()
    await page.getByTestId('preset-name').fill('Shop Beige')
    expect(await page.getByTestId('preset-slug').textContent()).toContain('shop-beige')
    await page.getByTestId('param-background').selectOption('color')
    await page.getByTestId('param-color').fill('beige')
    await page.getByTestId('param-crop').selectOption('subject')
    await page.getByTestId('param-size').selectOption('box')
    await page.getByTestId('param-margin').fill('12')
    await page.getByTestId('param-shadow').selectOption('top')
    await page.getByTestId('param-primary').selectOption('shadowTop')
    expect(await page.getByTestId('preset-params').textContent()).toBe(
      'background=beige;shadow=top;crop=subject;size=2000x2000;margin=12%;primary=shadowTop'
    )
    // The designer's names for the versions of a photo and for the main file.
    const labels = await page.locator('.variation-choices label').allTextContents()
    expect(labels).toEqual(Object.values(VARIATION_LABEL))
    expect(await page.getByTestId('param-primary').locator('option').allTextContents()).toEqual([
      'Default',
      ...Object.values(VARIATION_LABEL)
    ])
    expect(await page.getByTestId('preset-editor').textContent()).toContain('Main file')

    const preview = page.getByTestId('preset-preview')
    await preview.waitFor({ timeout: 180_000 })
    await page.waitForFunction(() => {
      const img = (globalThis as any).document.querySelector('[data-testid=preset-preview]')
      return img?.complete && img.naturalWidth > 0
    })
    // Beside the controls and above the fold at 1280×800, the whole square frame inside its box.
    const shown = await box(preview)
    const name = await box(page.getByTestId('preset-name'))
    expect(shown.x).toBeGreaterThan(name.x + name.width)
    expect(shown.y + shown.height).toBeLessThanOrEqual(800)
    const natural = await preview.evaluate((img: any) => ({ w: img.naturalWidth, h: img.naturalHeight }))
    expect(natural.w).toBe(natural.h) // 2000×2000: margins and shadow included
    const panel = await box(page.locator('.preview-box'))
    expect(shown.y).toBeGreaterThanOrEqual(panel.y)
    expect(shown.y + shown.height).toBeLessThanOrEqual(panel.y + panel.height)
    await screenshots(page, 'preset-editor', () => page.getByTestId('preset-editor').scrollIntoViewIfNeeded())

    await page.getByTestId('save-preset').click()
    await expect.poll(() => page.getByTestId('preset-list').textContent()).toContain('Shop Beige')
  })

  it('draws a user preset as a whole card: any name wraps, Delete never covers it', async () => {
    await page.getByTestId('new-preset').click()
    await page.getByTestId('preset-name').fill('A very long preset name for the spring and summer catalogue of the shop')
    await page.getByTestId('param-background').selectOption('transparent')
    await page.getByTestId('save-preset').click()
    const cards = page.locator('[data-testid=preset-card][data-builtin=false]')
    await expect.poll(() => cards.count()).toBe(2)
    await screenshots(
      page,
      'preset-list',
      () => page.getByTestId('preset-list').scrollIntoViewIfNeeded(),
      async () => {
        for (let i = 0; i < 2; i++) {
          const card = cards.nth(i)
          const cardBox = await box(card)
          const titleBox = await box(card.locator('.title'))
          const del = await box(card.getByTestId('delete-preset'))
          expect(cardBox.height).toBeGreaterThan(40)
          expect(intersects(titleBox, del)).toBe(false)
          expect(titleBox.x + titleBox.width).toBeLessThanOrEqual(cardBox.x + cardBox.width)
          expect(del.x + del.width).toBeLessThanOrEqual(cardBox.x + cardBox.width)
        }
      }
    )
    expect(await cards.filter({ hasText: 'Shop Beige' }).textContent()).toContain('shop-beige')
  })

  it('uses one set of mode names on every screen and no developer words', async () => {
    await page.getByTestId('nav-batches').click()
    const batchModes = await page
      .locator('select', { has: page.locator(`option[value=clipping]`) })
      .first()
      .locator('option')
      .allTextContents()
    expect(batchModes).toEqual([MODE_LABEL.clipping, MODE_LABEL.background])
    expect(await page.getByTestId('batch-preset').locator('option').allTextContents()).toContain('Shop Beige')
    const batchText = (await page.locator('main').textContent()) ?? ''
    await page.getByTestId('nav-watch').click()
    await page.getByTestId('watch-add').click()
    const watchModes = await page
      .getByTestId('watch-form')
      .locator('select', { has: page.locator('option[value=clipping]') })
      .locator('option')
      .allTextContents()
    expect(watchModes).toEqual([MODE_LABEL.clipping, MODE_LABEL.background, MODE_LABEL.params])
    // The example name uses the designer's word for the version written.
    expect(await page.getByTestId('watch-form').textContent()).toContain('photo.cut-out.png')
    const watchText = (await page.locator('main').textContent()) ?? ''
    await page.getByTestId('nav-presets').click()
    await page.getByTestId('preset-list').waitFor()
    const presetText = (await page.locator('main').textContent()) ?? ''
    for (const text of [batchText, watchText, presetText]) for (const word of DEVELOPER_WORDS) expect(text).not.toContain(word)
  })

  it('compares a cropping preset’s result with the same framing of the original; Esc returns focus', async () => {
    const dir = join(root, 'in', 'framing')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'ball.png'), await scenePng())
    await page.getByTestId('nav-batches').click()
    await page.getByTestId('batch-preset').selectOption('shop-beige')
    await page.getByTestId('folder-input').setInputFiles(dir)
    await page.getByTestId('batch-destination').fill(join(root, 'out-framing'))
    await page.getByTestId('start-batch').click()
    await expect.poll(() => page.getByTestId('batch-outcome').textContent(), { timeout: 240_000 }).toBe('Done with 1 warning')
    // The ball enlarged to fill the 2000×2000 square: said in the end state and on the row.
    expect(await page.getByTestId('item-warning').textContent()).toMatch(/^⚠ With shadow: enlarged [\d.]+×/)
    await page.getByTestId('open-viewer').click()
    await page.waitForFunction(() => {
      const imgs: any[] = [...(globalThis as any).document.querySelectorAll('[data-testid=viewer] img')]
      return imgs.length === 2 && imgs.every((i) => i.complete && i.naturalWidth > 0)
    })
    const [after, before] = await page
      .locator('[data-testid=viewer] img')
      .evaluateAll((imgs: any[]) => imgs.map((i) => i.naturalWidth / i.naturalHeight))
    // The 4:3 photo is shown framed as the 2000×2000 result frames it.
    expect(before).toBeCloseTo(after!, 2)
    expect(before).toBeCloseTo(1, 2)
    await page.keyboard.press('Escape')
    await expect.poll(() => page.getByTestId('viewer').count()).toBe(0)
    await expect
      .poll(() => page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('data-testid')))
      .toBe('open-viewer')
    expect(pageErrors).toEqual([])
  })
})
