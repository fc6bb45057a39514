/**
 * End to end, the main file is what was asked for: in the preset editor, Shadow "Contact shadow"
 * with Main file left on "Default" previews the shadowed version — the set names no main file,
 * so the shadow is it (docs/params.md "Mode and parameter set"). The preview's own bytes are
 * read back and the shadow found under the sample ball. Built renderer in Chromium against
 * `clipdesk serve`; screenshots at 1280×800 and 900×700, light and dark.
 */
import type { BrowserContext, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServeProcess } from '../helpers/cli'
import { redBox } from '../helpers/cutout'
import { openApp, closeApp } from './app-session'
import { hasChromium, SKIP_REASON } from './chromium'
import { screenshots } from './views'

const title = hasChromium
  ? 'a preset with a contact shadow previews the shadow, in Chromium against clipdesk serve'
  : `preset shadow — ${SKIP_REASON}`

describe.skipIf(!hasChromium)(title, () => {
  let root: string
  let serve: ServeProcess
  let context: BrowserContext
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    ;({ root, serve, context, page } = await openApp('clipdesk-e2e-shadow-', pageErrors))
  })
  afterAll(() => closeApp({ root, serve, context }))

  it('Shadow "Contact shadow", Main file "Default": the preview is the shadowed version, the shadow under the ball', async () => {
    await page.getByTestId('nav-presets').click()
    await page.getByTestId('new-preset').click()
    await page.getByTestId('preset-name').fill('White with shadow')
    await page.getByTestId('param-background').selectOption('color')
    await page.getByTestId('param-color').fill('#FFFFFF')
    await page.getByTestId('param-crop').selectOption('subject')
    await page.getByTestId('param-size').selectOption('box')
    await page.getByTestId('param-margin').fill('10')
    await page.getByTestId('param-shadow').selectOption('top')
    expect(await page.getByTestId('param-primary').inputValue()).toBe('') // Main file: Default
    await expect
      .poll(() => page.getByTestId('preset-params').textContent())
      .toBe('background=#FFFFFF;shadow=top;crop=subject;size=2000x2000;margin=10%')

    const preview = page.getByTestId('preset-preview')
    await preview.waitFor({ timeout: 180_000 })
    await page.waitForFunction(() => {
      const img = (globalThis as any).document.querySelector('[data-testid=preset-preview]')
      return img?.complete && img.naturalWidth > 0
    })
    const src = (await preview.getAttribute('src')) ?? ''
    expect(new URL(src, 'http://x/').pathname).toMatch(/\/shadowTop\.png$/)
    // The bytes the preview shows, read back in the page.
    const base64 = await page.evaluate(async (url: string) => {
      const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer())
      let text = ''
      for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
      return btoa(text)
    }, src)
    const { data, info } = await sharp(Buffer.from(base64, 'base64')).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
    expect([info.width, info.height]).toEqual([2000, 2000])
    const ball = redBox({ data, width: info.width, height: info.height })!
    const at = (x: number, y: number): number[] => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)]
    const under = at(Math.round(ball.x + ball.width / 2), ball.y + ball.height + 6)
    expect(under[0]).toBeLessThan(245) // darker than the white: the shadow
    expect(at(5, 5)).toEqual([255, 255, 255, 255])

    await screenshots(page, 'preset-shadow', () => page.getByTestId('preset-editor').scrollIntoViewIfNeeded())
    expect(pageErrors).toEqual([])
  })
})
