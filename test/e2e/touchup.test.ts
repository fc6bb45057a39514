/**
 * End to end, touch-up of a done file (docs/touch-up.md "Touch-up"): a batch of one photo made in
 * code (a ball on a gradient), "Touch up" on its row, a Remove stroke over part of the ball and a
 * Keep stroke over the background, undo and redo, Save; the destination's file then has the
 * strokes (alpha ≤ 0.1 and ≥ 0.9 there) and its previous version beside it, and the report notes
 * it. On the way, the editor's brush outline at its size, the strokes' tint (a control, and H held
 * hides it), Cancel asking before it drops unsaved strokes, zoom at the cursor and pan; then the
 * batch's before/after view zoomed at the cursor, panned by a drag, its divider in view at
 * 300 %. Then the same editor opened from a watched folder's done file: its result replaced, the
 * previous kept. Built renderer in Chromium against a real `clipdesk serve` (real model: the
 * same photo, its mask from the cache the second time). Screenshots of the editor at both sizes
 * and themes.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServeProcess } from '../helpers/cli'
import { SCENE, scenePng } from '../helpers/fixtures'
import { openApp, closeApp } from './app-session'
import { hasChromium, SKIP_REASON } from './chromium'
import { rowsFit, screenshots } from './views'
import { expectDragPans, expectWheelZoomAtCursor, percentIn } from './zoom'

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
    for (let k = 1; k <= 8; k++)
      await page.mouse.move(...at([from[0] + ((to[0] - from[0]) * k) / 8, from[1] + ((to[1] - from[1]) * k) / 8]))
    await page.mouse.up()
  }

  const strokes = () =>
    page
      .getByTestId('touchup')
      .getByText(/\d+ strokes?/)
      .textContent()
  const settledPreview = async (): Promise<void> => {
    await expect.poll(() => page.getByTestId('touchup-status').getAttribute('data-updating'), { timeout: 60_000 }).toBe('no')
  }

  it('paints Remove and Keep strokes, saves, and the destination file has them with the previous kept beside it', {
    timeout: 420_000
  }, async () => {
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
    await screenshots(
      page,
      'touchup-row',
      () => page.getByTestId('touch-up').scrollIntoViewIfNeeded(),
      (size) => rowsFit(page, size.width)
    )
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

    // The brush's outline follows the pointer at its size: 70 px of the photo on the screen.
    await page.getByTestId('touchup-remove').click()
    const canvas = (await page.getByTestId('touchup-canvas').boundingBox())!
    const pointer = { x: canvas.x + canvas.width * 0.3, y: canvas.y + canvas.height * 0.6 }
    await page.mouse.move(pointer.x, pointer.y)
    const ring = page.getByTestId('touchup-brush-outline')
    await ring.waitFor()
    const rb = (await ring.boundingBox())!
    expect(Math.abs(rb.width - (70 * canvas.width) / width)).toBeLessThan(3)
    expect(Math.abs(rb.x + rb.width / 2 - pointer.x)).toBeLessThan(1.5)
    expect(Math.abs(rb.y + rb.height / 2 - pointer.y)).toBeLessThan(1.5)
    await page.getByTestId('touchup-size').fill('30')
    await expect.poll(async () => (await ring.boundingBox())!.width).toBeLessThan((40 * canvas.width) / width)

    // The strokes' tint: a control, and H held hides it to judge the result under it.
    const tint = () => page.getByTestId('touchup-canvas').evaluate((c: any) => (globalThis as any).getComputedStyle(c).opacity)
    expect(await tint()).toBe('0.45')
    await page.keyboard.down('h')
    await expect.poll(tint).toBe('0')
    await page.keyboard.up('h')
    await expect.poll(tint).toBe('0.45')
    await page.getByTestId('touchup-tint').fill('80')
    await expect.poll(tint).toBe('0.8')

    // Cancel asks before it drops strokes that were not saved; "no" keeps the editor as it was.
    const asked: string[] = []
    page.once('dialog', (d) => {
      asked.push(d.message())
      void d.dismiss()
    })
    await page.getByTestId('touchup-cancel').click()
    await expect.poll(() => asked).toEqual(['Discard your unsaved strokes and boxes?'])
    expect(await page.getByTestId('touchup').count()).toBe(1)
    expect(await strokes()).toContain('2 strokes')

    // Zoom at the cursor and pan (Move), then back to the fitted view; the stage keeps its size.
    const stage = page.getByTestId('touchup-stage')
    const stageBox = (await stage.boundingBox())!
    const board = page.getByTestId('touchup-board')
    expect(await page.getByTestId('touchup-zoom').textContent()).toMatch(/^Fit \([\d.]+ %\)$/)
    await expectWheelZoomAtCursor(page, board)
    await page.getByRole('button', { name: 'Move', exact: true }).click()
    await expectDragPans(page, board, { x: stageBox.x + stageBox.width / 2, y: stageBox.y + stageBox.height / 2 }, -60, -40)
    await page.getByRole('button', { name: 'Move', exact: true }).click()
    await page.getByRole('button', { name: '100 %' }).click()
    await expect.poll(async () => percentIn(await page.getByTestId('touchup-zoom').textContent())).toBe(100)
    expect(Math.abs((await board.boundingBox())!.width - width)).toBeLessThan(1)
    await page.getByRole('button', { name: 'Fit', exact: true }).click()
    await expect.poll(() => page.getByTestId('touchup-zoom').textContent()).toMatch(/^Fit/)
    expect(await stage.boundingBox()).toEqual(stageBox)

    // The preview the editor shows has the strokes already.
    const shown = await page.getByTestId('touchup-image').getAttribute('src')
    const previewAlpha = await sharp(Buffer.from(shown!.split(',')[1]!, 'base64'))
      .ensureAlpha()
      .extractChannel(3)
      .raw()
      .toBuffer()
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
    await expect
      .poll(
        () =>
          existsSync(join(out, 'clipdesk-report.json')) &&
          JSON.parse(readFileSync(join(out, 'clipdesk-report.json'), 'utf8')).touched_up?.[0]?.input
      )
      .toBe('photos/ball.png')

    // Saved: closing asks nothing.
    await page.getByTestId('touchup-cancel').click()
    await expect.poll(() => page.getByTestId('touchup').count()).toBe(0)
    expect(pageErrors).toEqual([])
  })

  it("zooms the batch's before/after at the cursor, pans it by a drag, and keeps the divider in view", async () => {
    await page.getByTestId('open-viewer').first().click()
    await page.waitForFunction(() => {
      const imgs: any[] = [...(globalThis as any).document.querySelectorAll('[data-testid=viewer] img')]
      return imgs.length === 2 && imgs.every((i) => i.complete && i.naturalWidth > 0)
    })
    const label = () => page.getByTestId('viewer-zoom').textContent()
    await expect.poll(label).toMatch(/^Fit \([\d.]+ %\)$/)
    const picture = page.getByTestId('viewer-canvas')
    await expectWheelZoomAtCursor(page, picture)
    const stage = (await page.getByTestId('viewer-stage').boundingBox())!
    await expectDragPans(page, picture, { x: stage.x + stage.width / 2, y: stage.y + stage.height / 2 }, -70, -30)

    // At 300 % and more the divider is still where the slider puts it, inside the viewport.
    await page.getByTestId('viewer-slider').fill('35')
    while (percentIn(await label()) < 300) await page.getByRole('button', { name: 'Zoom in' }).click()
    const divider = (await page.getByTestId('viewer-divider').boundingBox())!
    expect(Math.abs(divider.x - (stage.x + 0.35 * stage.width))).toBeLessThan(3)
    expect(divider.y).toBeGreaterThanOrEqual(stage.y - 1)
    expect(divider.y + divider.height).toBeLessThanOrEqual(stage.y + stage.height + 1)
    await screenshots(page, 'before-after-300', () => page.getByTestId('viewer-divider').waitFor())

    // 100 % is one pixel of the picture per pixel of the screen.
    await page.getByRole('button', { name: '100 %' }).click()
    await expect.poll(label).toBe('100 %')
    expect(Math.abs((await picture.boundingBox())!.width - width)).toBeLessThan(1)
    await page.keyboard.press('Escape')
    await expect.poll(() => page.getByTestId('viewer').count()).toBe(0)
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
