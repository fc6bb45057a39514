/**
 * Looking at the app as a designer would: at 1280×800 and 900×700, in the light and the dark
 * theme, with screenshots kept in test-results/e2e/, and checks that what must stay visible
 * (a row's state and actions, a title on one line) does.
 */
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { expect } from 'vitest'
import { ARTIFACTS } from './chromium'

export const SIZES = [
  { width: 1280, height: 800 },
  { width: 900, height: 700 }
] as const
export const THEMES = ['light', 'dark'] as const

/**
 * The theme as the app applies it (`data-theme` on <html>, what App's theme effect sets from the
 * Settings choice): set directly, so that a screen's state (an open editor) survives the change.
 */
export async function setTheme(page: Page, theme: (typeof THEMES)[number]): Promise<void> {
  await page.evaluate((t) => ((globalThis as any).document.documentElement.dataset.theme = t), theme)
}

/**
 * Screenshots of what is on screen now at both sizes and in both themes:
 * `<name>-1280x800-light.png`, `<name>-900x700-dark.png`…; `show` brings the part to look at into
 * view after each resize. `check` runs at each size (layout assertions).
 */
export async function screenshots(
  page: Page,
  name: string,
  show: () => Promise<unknown>,
  check?: (size: (typeof SIZES)[number]) => Promise<unknown>
): Promise<string[]> {
  const files: string[] = []
  for (const size of SIZES) {
    await page.setViewportSize(size)
    await show()
    await check?.(size)
    for (const theme of THEMES) {
      await setTheme(page, theme)
      const file = `${name}-${size.width}x${size.height}-${theme}.png`
      await page.screenshot({ path: join(ARTIFACTS, file) })
      files.push(file)
    }
  }
  await setTheme(page, 'light')
  await page.setViewportSize(SIZES[0])
  return files
}

/** The element's box; it must be rendered. */
export async function box(l: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const b = await l.boundingBox()
  expect(b, 'the element is rendered').not.toBeNull()
  return b!
}

/** Every row of the file list in view keeps its state badge and its action buttons inside the window. */
export async function rowsFit(page: Page, width: number): Promise<void> {
  const rows = page.locator('[data-testid=batch-item]')
  const n = Math.min(await rows.count(), 6)
  expect(n).toBeGreaterThan(0)
  for (let i = 0; i < n; i++) {
    const row = rows.nth(i)
    await row.scrollIntoViewIfNeeded()
    const status = await box(row.getByTestId('item-status'))
    expect(status.x + status.width, `row ${i}: its state is inside the window`).toBeLessThanOrEqual(width)
    const buttons = row.locator('.actions button')
    for (let j = 0; j < (await buttons.count()); j++) {
      const b = await box(buttons.nth(j))
      expect(b.x + b.width, `row ${i}: its button ${j} is inside the window`).toBeLessThanOrEqual(width)
      expect(b.x, `row ${i}: its button ${j} does not overlap the state`).toBeGreaterThanOrEqual(status.x + status.width)
    }
  }
}

/** The text of an element stays on one line (its height is one line's). */
export async function oneLine(l: Locator): Promise<void> {
  const lineHeight = await l.evaluate((el: any) => {
    const style = (globalThis as any).getComputedStyle(el)
    return parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.4
  })
  expect((await box(l)).height).toBeLessThan(lineHeight * 1.6)
}
