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

/**
 * How much of a name is drawn: its box's width and about how many of its characters show (a part
 * cut by an ellipsis counted by the share of it in view, the whole cut to what lies inside every
 * ancestor that clips it). A name cut in its middle (`.middle-ellipsis`) counts its two parts.
 */
export async function shownText(l: Locator): Promise<{ text: string; width: number; shown: number }> {
  return l.evaluate((el: any) => {
    const g = globalThis as any
    const parts: any[] = el.classList.contains('middle-ellipsis') ? [...el.children] : [el]
    let shown = 0
    for (const part of parts) {
      const n = [...(part.textContent ?? '')].length
      if (n > 0 && part.scrollWidth > 0) shown += Math.floor(n * Math.min(1, part.clientWidth / part.scrollWidth))
    }
    const r = el.getBoundingClientRect()
    let left = r.left
    let right = r.right
    for (let a = el.parentElement; a; a = a.parentElement) {
      if (g.getComputedStyle(a).overflowX === 'visible') continue
      const b = a.getBoundingClientRect()
      left = Math.max(left, b.left)
      right = Math.min(right, b.right)
    }
    const inView = r.width > 0 ? Math.max(0, right - left) / r.width : 0
    return { text: el.textContent ?? '', width: r.width, shown: Math.floor(shown * Math.min(1, inView)) }
  })
}

/** The name is drawn (a width above 0) and not cut to fewer than `min` characters (all of it when shorter). */
export async function readable(l: Locator, what: string, min = 12): Promise<void> {
  const s = await shownText(l)
  expect(s.width, `${what} "${s.text}" is drawn`).toBeGreaterThan(0)
  expect(s.shown, `${what} "${s.text}": characters shown`).toBeGreaterThanOrEqual(Math.min(min, [...s.text].length))
}

/**
 * Each choice of a menu (<select>) fits its box whole when chosen: its text's width in the
 * menu's font, against the box less its padding and the arrow.
 */
export async function menuFits(l: Locator, what: string): Promise<void> {
  const sizes = await l.evaluate((sel: any) => {
    const g = globalThis as any
    const style = g.getComputedStyle(sel)
    const ctx = g.document.createElement('canvas').getContext('2d')
    ctx.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`
    // Chromium draws the arrow in the padding box's right end, about 20 px wide.
    const room = sel.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20
    return [...sel.options].map((o: any) => ({ text: o.text as string, need: ctx.measureText(o.text).width as number, room }))
  })
  expect(sizes.length, `${what} has choices`).toBeGreaterThan(0)
  for (const s of sizes) expect(s.need, `${what}: "${s.text}" fits its ${Math.round(s.room)} px`).toBeLessThanOrEqual(s.room)
}
