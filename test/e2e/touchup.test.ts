/* eslint-disable @typescript-eslint/no-explicit-any -- callbacks run in the page; the Node project has no DOM types */
/**
 * End to end, touch-up of a done file (docs/review.md "Touch-up"): a batch of one photo made in
 * code (a ball on a gradient), "Touch up" on its row, a Remove stroke over part of the ball and a
 * Keep stroke over the background, undo and redo, Save; the destination's file then has the
 * strokes (alpha ≤ 0.1 and ≥ 0.9 there) and its previous version beside it, and the report notes
 * it. Then the same editor opened from a watched folder's done file: its result replaced, the
 * previous kept. Built renderer in Chromium against a real `clipdesk serve` (real model: the
 * same photo, its mask from the cache the second time). Screenshots of the editor at both sizes
 * and themes.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServeProcess } from '../helpers/cli'
import { SCENE, scenePng } from '../helpers/fixtures'
import { openApp, closeApp } from './app-session'
import { hasChromium, SKIP_REASON } from './chromium'
import { rowsFit, screenshots } from './views'

const title = hasChromium ? 'touch-up of a done file, in Chromium against clipdesk serve' : `touch-up — ${SKIP_REASON}`
const { width, height } = SCENE
/** The ball's middle (remove) and the gradient right of it (keep): [x, y, w, h] in the photo's pixels. */
const REMOVE = [200, 160, 60, 60] as const
const KEEP = [420, 30, 60, 60] as const

function meanIn(alpha: Buffer, [x0, y0, w, h]: readonly number[]): number {
  let sum = 0
  for (let y = y0!; y < y0! + h!; y++) for (let x = x0!; x < x0! + w!; x++) sum += alpha[y * width + x]!
  return sum / (w! * h!)
}

describe.skipIf(!hasChromium)(title, () => {
  let root: string
  let serve: ServeProcess
  let context: BrowserContext
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    ;({ root, serve, context, page } = await openApp('clipdesk-e2e-touchup-', pageErrors))
  })
  afterAll(() => closeApp({ root, serve, context }))

  /** Drags across the editor's canvas from one point of the photo to another (photo pixels). */
  async function drag(from: [number, number], to: [number, number]): Promise<void> {
    const box = (await page.getByTestId('touchup-canvas').boundingBox())!
    const at = ([x, y]: [number, number]): [number, number] => [box.x + (x / width) * box.width, box.y + (y / height) * box.height]
    await page.mouse.move(...at(from))
    await page.mouse.down()
    for (let k = 1; k <= 8; k++) await page.mouse.move(...at([from[0] + ((to[0] - from[0]) * k) / 8, from[1] + ((to[1] - from[1]) * k) / 8]))
    await page.mouse.up()
  }

  const strokes = () => page.getByTestId('touchup').getByText(/\d+ strokes?/).textContent()
  const settledPreview = async (): Promise<void> => {
    await expect.poll(() => page.getByTestId('touchup-status').getAttribute('data-updating'), { timeout: 60_000 }).toBe('no')
  }

  it('paints Remove and Keep strokes, saves, and the destination file has them with the previous kept beside it', { timeout: 420_000 }, async () => {
    const dir = join(root, 'in', 'photos')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'ball.png'), await scenePng())
    const out = join(root, 'out')
    await page.getByTestId('folder-input').setInputFiles(dir)
    await page.getByTestId('batch-destination').fill(out)
    await page.getByTestId('start-batch').click()
    await expect.poll(() => page.getByTestId('batch-outcome').textContent(), { timeout: 240_000 }).toBe('Done: 1 file')
    const file = join(out, 'photos', 'ball.png')
    const before = readFileSync(file)

    // The row's state and its buttons, Touch up among them, stay in view at both sizes.
    await screenshots(page, 'touchup-row', () => page.getByTestId('touch-up').scrollIntoViewIfNeeded(), (size) => rowsFit(page, size.width))
    await page.getByTestId('touch-up').click()
    await page.getByTestId('touchup-canvas').waitFor()
    await settledPreview()
    await page.getByTestId('touchup-size').fill('70')
    await page.getByTestId('touchup-hardness').fill('100')

    await page.getByTestId('touchup-remove').click()
    await drag([205, 190], [255, 190])
    await expect.poll(strokes).toContain('1 stroke')
    await settledPreview()
    await page.getByTestId('touchup-keep').click()
    await drag([430, 60], [470, 60])
    await expect.poll(strokes).toContain('2 strokes')
    await settledPreview()

    // Undo and redo, with the buttons and the keys.
    await page.getByTestId('touchup-undo').click()
    await expect.poll(strokes).toContain('1 stroke')
    await page.getByTestId('touchup-redo').click()
    await expect.poll(strokes).toContain('2 strokes')
    await page.keyboard.press('Control+z')
    await expect.poll(strokes).toContain('1 stroke')
    await page.keyboard.press('Control+Shift+Z')
    await expect.poll(strokes).toContain('2 strokes')
    await settledPreview()

    // The preview the editor shows has the strokes already.
    const shown = await page.getByTestId('touchup-image').getAttribute('src')
    const previewAlpha = await sharp(Buffer.from(shown!.split(',')[1]!, 'base64')).ensureAlpha().extractChannel(3).raw().toBuffer()
    expect(meanIn(previewAlpha, REMOVE)).toBeLessThanOrEqual(25.5)
    expect(meanIn(previewAlpha, KEEP)).toBeGreaterThanOrEqual(229.5)

    await screenshots(page, 'touchup', () => page.getByTestId('touchup-canvas').waitFor())
    await page.getByTestId('touchup-before').click()
    expect(await page.getByTestId('touchup-image').getAttribute('alt')).toBe('Original of ball.png')
    await page.getByTestId('touchup-before').click()

    await page.getByTestId('touchup-save').click()
    await expect.poll(() => page.getByTestId('touchup-saved').textContent(), { timeout: 120_000 }).toContain('ball.prev-1.png')
    await screenshots(page, 'touchup-saved', () => page.getByTestId('touchup-saved').waitFor())

    const alpha = await sharp(file).ensureAlpha().extractChannel(3).raw().toBuffer()
    expect(meanIn(alpha, REMOVE)).toBeLessThanOrEqual(25.5)
    expect(meanIn(alpha, KEEP)).toBeGreaterThanOrEqual(229.5)
    const kept = readFileSync(join(out, 'photos', 'ball.prev-1.png'))
    expect(kept.equals(before)).toBe(true)
    const old = await sharp(kept).ensureAlpha().extractChannel(3).raw().toBuffer()
    expect(meanIn(old, REMOVE)).toBeGreaterThan(200)
    await expect.poll(() => existsSync(join(out, 'clipdesk-report.json')) && JSON.parse(readFileSync(join(out, 'clipdesk-report.json'), 'utf8')).touched_up?.[0]?.input).toBe('photos/ball.png')

    await page.getByTestId('touchup-cancel').click()
    await expect.poll(() => page.getByTestId('touchup').count()).toBe(0)
    expect(pageErrors).toEqual([])
  })

  it('touches up a done file of a watched folder from its list, with the same editor', { timeout: 420_000 }, async () => {
    const inbox = join(root, 'watched')
    mkdirSync(inbox, { recursive: true })
    writeFileSync(join(inbox, 'ball.png'), await scenePng())
    await page.getByTestId('nav-watch').click()
    await page.getByTestId('watch-add').click()
    await page.getByTestId('watch-path').fill(inbox)
    await page.getByTestId('watch-save').click()
    const card = page.locator('[data-testid^=watch-folder-]')
    await expect.poll(() => card.getByTestId('watch-counts').textContent(), { timeout: 240_000 }).toContain('Done 1')
    const file = join(inbox, 'clipdesk-out', 'ball.cut-out.png')
    const before = readFileSync(file)

    await card.getByTestId('watch-done').locator('summary').click()
    await card.getByTestId('watch-touch-up').click()
    await page.getByTestId('touchup-canvas').waitFor()
    await settledPreview()
    await page.getByTestId('touchup-size').fill('70')
    await page.getByTestId('touchup-hardness').fill('100')
    await page.getByTestId('touchup-remove').click()
    await drag([205, 190], [255, 190])
    await expect.poll(strokes).toContain('1 stroke')
    await settledPreview()
    await page.getByTestId('touchup-keep').click()
    await drag([430, 60], [470, 60])
    await expect.poll(strokes).toContain('2 strokes')
    await settledPreview()

    await page.getByTestId('touchup-save').click()
    await expect.poll(() => page.getByTestId('touchup-saved').textContent(), { timeout: 120_000 }).toContain('ball.cut-out.prev-1.png')
    const alpha = await sharp(file).ensureAlpha().extractChannel(3).raw().toBuffer()
    expect(meanIn(alpha, REMOVE)).toBeLessThanOrEqual(25.5)
    expect(meanIn(alpha, KEEP)).toBeGreaterThanOrEqual(229.5)
    expect(readFileSync(join(inbox, 'clipdesk-out', 'ball.cut-out.prev-1.png')).equals(before)).toBe(true)

    await page.getByTestId('touchup-cancel').click()
    await expect.poll(() => page.getByTestId('touchup').count()).toBe(0)
    // The folder's list says it was touched up; the folder took nothing new.
    await expect.poll(() => card.getByTestId('watch-done').getByTestId('review-badge').textContent()).toBe('Touched up')
    expect(await card.getByTestId('watch-counts').textContent()).toContain('Done 1')
    expect(pageErrors).toEqual([])
  })
})
