/**
 * End to end, the touch-up editor's Look again box (docs/touch-up.md "Look again"): a batch of one
 * photo made in code whose small subject the model misses on the whole frame; in the editor a box
 * dragged round it (the preview runs the model on that crop, showing that it is busy), undone and
 * redone, then Save; the destination's file then has the small subject and its previous version
 * (without it) beside it. Built renderer in Chromium against a real `clipdesk serve` (real model).
 * Screenshots of the editor with the box at both sizes and themes.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServeProcess } from '../helpers/cli'
import { SMALL_SUBJECT, smallSubjectPng, smallSubjectScores } from '../helpers/fixtures'
import { openApp, closeApp } from './app-session'
import { hasChromium, SKIP_REASON } from './chromium'
import { screenshots } from './views'

const title = hasChromium ? 'look-again box in touch-up, in Chromium against clipdesk serve' : `look-again box — ${SKIP_REASON}`
const { width, height, box } = SMALL_SUBJECT

describe.skipIf(!hasChromium)(title, () => {
  let root: string
  let serve: ServeProcess
  let context: BrowserContext
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    ;({ root, serve, context, page } = await openApp('clipdesk-e2e-look-again-', pageErrors))
  })
  afterAll(() => closeApp({ root, serve, context }))

  /** Drags across the editor's canvas from one point of the photo to another (photo pixels). */
  async function drag(from: [number, number], to: [number, number]): Promise<void> {
    const r = (await page.getByTestId('touchup-canvas').boundingBox())!
    const at = ([x, y]: [number, number]): [number, number] => [r.x + (x / width) * r.width, r.y + (y / height) * r.height]
    await page.mouse.move(...at(from))
    await page.mouse.down()
    for (let k = 1; k <= 6; k++)
      await page.mouse.move(...at([from[0] + ((to[0] - from[0]) * k) / 6, from[1] + ((to[1] - from[1]) * k) / 6]))
    await page.mouse.up()
  }

  const counts = () =>
    page
      .getByTestId('touchup')
      .getByText(/\d+ strokes?/)
      .textContent()
  const settledPreview = async (): Promise<void> => {
    await expect.poll(() => page.getByTestId('touchup-status').getAttribute('data-updating'), { timeout: 120_000 }).toBe('no')
  }
  const shownAlpha = async (): Promise<Buffer> => {
    const src = await page.getByTestId('touchup-image').getAttribute('src')
    return sharp(Buffer.from(src!.split(',')[1]!, 'base64'))
      .ensureAlpha()
      .extractChannel(3)
      .raw()
      .toBuffer()
  }

  it('a box round a missed subject: the preview looks again, Save writes it, the previous is kept', { timeout: 420_000 }, async () => {
    const dir = join(root, 'in', 'photos')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'small.png'), await smallSubjectPng())
    const out = join(root, 'out')
    await page.getByTestId('folder-input').setInputFiles(dir)
    await page.getByTestId('batch-destination').fill(out)
    await page.getByTestId('start-batch').click()
    await expect.poll(() => page.getByTestId('batch-outcome').textContent(), { timeout: 240_000 }).toBe('Done: 1 file')
    const file = join(out, 'photos', 'small.png')
    const before = readFileSync(file)
    expect(smallSubjectScores(await sharp(before).ensureAlpha().extractChannel(3).raw().toBuffer())).toBeLessThan(60)

    await page.getByTestId('touch-up').click()
    await page.getByTestId('touchup-canvas').waitFor()
    await settledPreview()
    expect(smallSubjectScores(await shownAlpha())).toBeLessThan(60)

    // Whether the editor said it was looking again while the model ran on the crop.
    await page.evaluate(() => {
      const w = globalThis as any
      w.__lookedBusy = false
      const watch = new w.MutationObserver(() => {
        if (w.document.querySelector('[data-testid=touchup-status]')?.textContent?.includes('Looking again')) w.__lookedBusy = true
      })
      watch.observe(w.document.body, { subtree: true, childList: true, characterData: true })
    })
    await page.getByTestId('touchup-look').click()
    await drag([box.x, box.y], [box.x + box.width, box.y + box.height])
    await expect.poll(counts).toContain('1 box')
    await settledPreview()
    expect(await page.evaluate(() => (globalThis as any).__lookedBusy)).toBe(true)
    expect(smallSubjectScores(await shownAlpha())).toBeGreaterThan(200)
    // The box is outlined where it was drawn, in two tones (light dashes between dark lines), at full strength whatever the strokes' tint.
    const outline = page.getByTestId('touchup-box')
    expect(await outline.count()).toBe(1)
    const c = (await page.getByTestId('touchup-canvas').boundingBox())!
    const o = (await outline.boundingBox())!
    expect(Math.abs(o.x - (c.x + (box.x / width) * c.width))).toBeLessThan(2)
    expect(Math.abs(o.width - (box.width / width) * c.width)).toBeLessThan(2)
    const look = await outline.evaluate((el: any) => {
      const st = (globalThis as any).getComputedStyle(el)
      return { border: st.borderTopStyle, width: st.borderTopWidth, shadow: st.boxShadow, opacity: st.opacity }
    })
    expect(look).toMatchObject({ border: 'dashed', width: '2px', opacity: '1' })
    expect(look.shadow).toContain('inset')
    await screenshots(page, 'touchup-look-again', () => page.getByTestId('touchup-canvas').waitFor())

    // The box is part of undo and redo.
    await page.keyboard.press('Control+z')
    await expect.poll(counts).not.toContain('box')
    await settledPreview()
    expect(smallSubjectScores(await shownAlpha())).toBeLessThan(60)
    await page.getByTestId('touchup-redo').click()
    await expect.poll(counts).toContain('1 box')
    await settledPreview()
    expect(smallSubjectScores(await shownAlpha())).toBeGreaterThan(200)

    await page.getByTestId('touchup-save').click()
    await expect.poll(() => page.getByTestId('touchup-saved').textContent(), { timeout: 120_000 }).toContain('small.prev-1.png')
    const after = await sharp(file).ensureAlpha().extractChannel(3).raw().toBuffer()
    expect(smallSubjectScores(after)).toBeGreaterThan(200)
    expect(readFileSync(join(out, 'photos', 'small.prev-1.png')).equals(before)).toBe(true)

    await page.getByTestId('touchup-cancel').click()
    await expect.poll(() => page.getByTestId('touchup').count()).toBe(0)
    expect(pageErrors).toEqual([])
  })
})
