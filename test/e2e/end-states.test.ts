/**
 * End to end, the Batches screen says what happened: a stopped batch ("Stopped: 1 done, …
 * not started", a grey bar, never green), a batch with failures ("Done with 2 errors", each file
 * in plain words, the system's text behind Details, Esc back to where focus was, Retry keeping
 * the real error until its result), a batch that failed whole; the destination refused before
 * any file is sent; the total counted first; the form's choices kept across a reload. At
 * 1280×800 and 900×700 in both themes, every row keeps its state and actions in view.
 * Built renderer in Chromium against a real `clipdesk serve` (real model).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServeProcess } from '../helpers/cli'
import { scenePng } from '../helpers/fixtures'
import { readOnlyFolder } from '../helpers/read-only'
import type { BatchDetail, BatchSummary } from '../../src/shared/batches'
import { appCall, openApp, closeApp } from './app-session'
import { hasChromium, SKIP_REASON } from './chromium'
import { box, oneLine, rowsFit, screenshots } from './views'

const title = hasChromium
  ? 'end states and plain words on the Batches screen, in Chromium against clipdesk serve'
  : `end states — ${SKIP_REASON}`

describe.skipIf(!hasChromium)(title, () => {
  let root: string
  let serve: ServeProcess
  let context: BrowserContext
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    ;({ root, serve, context, page } = await openApp('clipdesk-e2e-states-', pageErrors))
  })
  afterAll(() => closeApp({ root, serve, context }))

  /** A folder of inputs: distinct photos (no mask is reused between them), and other files as given. */
  async function folder(name: string, photos: number, others: Record<string, Buffer | string> = {}): Promise<string> {
    const dir = join(root, 'in', name)
    mkdirSync(dir, { recursive: true })
    const png = await scenePng()
    for (let i = 0; i < photos; i++)
      writeFileSync(
        join(dir, `photo-${i}.png`),
        await sharp(png)
          .resize(240 + 16 * i)
          .png()
          .toBuffer()
      )
    for (const [file, bytes] of Object.entries(others)) writeFileSync(join(dir, file), bytes)
    return dir
  }

  async function start(dir: string, destination: string): Promise<void> {
    await page.getByTestId('nav-batches').click()
    await page.getByTestId('folder-input').setInputFiles(dir)
    await page.getByTestId('batch-destination').fill(destination)
    await page.getByTestId('start-batch').click()
  }

  const outcome = () => page.getByTestId('batch-outcome')
  /** The API's view of cut.jpg in the newest batch (the app's own bridge, with the owner key). */
  async function cutItem(): Promise<{ job_id: string | null; state: string }> {
    const batches = await appCall<BatchSummary[]>(serve.port, serve.key!, 'batchesList')
    const newest = batches.reduce((a, b) => (b.created_at > a.created_at ? b : a))
    const detail = await appCall<BatchDetail>(serve.port, serve.key!, 'batchGet', newest.id)
    return detail.items.find((i) => i.name === 'cut.jpg')!
  }
  const kind = () => outcome().getAttribute('data-kind')
  const showHead = () => page.getByTestId('batch-outcome').scrollIntoViewIfNeeded()

  it('starts with a visible default destination, and keeps the preset and destination across a reload', async () => {
    const suggested = await page.getByTestId('batch-destination').inputValue()
    expect(basename(suggested)).toBe('Clipdesk')
    expect(suggested.startsWith(join(root, 'data'))).toBe(false) // never the hidden data folder
    await page.getByTestId('batch-preset').selectOption('ecommerce-white')
    await page.getByTestId('batch-destination').fill(join(root, 'kept'))
    await page.reload()
    // The draft comes back once the presets it names have loaded: waited for, not read at once.
    await expect.poll(() => page.getByTestId('batch-preset').inputValue()).toBe('ecommerce-white')
    await expect.poll(() => page.getByTestId('batch-destination').inputValue()).toBe(join(root, 'kept'))
    await page.getByTestId('batch-preset').selectOption('')
    // "All variations" sits with its words: the box beside the first line of its label.
    const check = await box(page.getByTestId('batch-all-variations'))
    const words = await box(
      page
        .locator('label.check', { has: page.getByTestId('batch-all-variations') })
        .locator('span')
        .first()
    )
    expect(Math.abs(check.y + check.height / 2 - (words.y + 10))).toBeLessThan(10)
    expect(check.x + check.width).toBeLessThan(words.x)
  })

  it('checks the destination before any file is sent and says what is wrong in plain words', async () => {
    const dir = await folder('refused', 1)
    await start(dir, '/proc/clipdesk/out')
    await expect
      .poll(() => page.getByTestId('destination-problem').textContent())
      .toContain('The folder /proc/clipdesk cannot be made: /proc does not take new folders')
    // The server answered at once (no stuck mkdir) and the files stay staged for another try.
    expect((await fetch(`http://127.0.0.1:${serve.port}/api/v1/health`)).status).toBe(200)
    expect(await page.getByTestId('staged-count').textContent()).toContain('1 file ready')
    writeFileSync(join(root, 'a-file'), 'a file')
    await page.getByTestId('batch-destination').fill(join(root, 'a-file', 'out'))
    await page.getByTestId('start-batch').click()
    await expect
      .poll(() => page.getByTestId('destination-problem').textContent())
      .toContain(`${join(root, 'a-file')} is a file, not a folder`)
    const ro = readOnlyFolder()
    if (ro) {
      await page.getByTestId('batch-destination').fill(ro)
      await page.getByTestId('start-batch').click()
      await expect.poll(() => page.getByTestId('destination-problem').textContent()).toContain(`The folder is read-only: ${ro}`)
      await page.getByTestId('destination-problem').locator('summary').click()
      expect(await page.getByTestId('destination-problem').locator('pre').textContent()).toMatch(/^E(ACCES|ROFS|PERM):/)
    }
    await page.getByRole('button', { name: 'Clear' }).click()
  })

  it('a stopped batch says done, stopped and not started, with a grey bar; the total never grows while files are sent', async () => {
    const dir = await folder('stop', 6)
    // Every total the head shows while the files are sent and run.
    await page.evaluate(() => {
      const g = globalThis as any
      g.totalsSeen = []
      new g.MutationObserver(() => {
        const m = /of (\d+) done/.exec(g.document.querySelector('[data-testid=batch-count]')?.textContent ?? '')
        if (m) g.totalsSeen.push(Number(m[1]))
      }).observe(g.document.body, { subtree: true, childList: true, characterData: true })
    })
    await start(dir, join(root, 'out-stop'))
    await page.waitForFunction(
      () => (globalThis as any).document.querySelectorAll('[data-testid=batch-item][data-state=done]').length >= 1,
      null,
      { timeout: 240_000 }
    )
    await page.getByTestId('cancel-batch').click()
    await expect.poll(kind, { timeout: 60_000 }).toBe('stopped')
    expect(new Set(await page.evaluate(() => (globalThis as any).totalsSeen as number[]))).toEqual(new Set([6]))
    expect(await outcome().textContent()).toMatch(/^Stopped: \d+ done(, \d+ stopped while running)?, \d+ not started$/)
    const bar = page.getByTestId('batch-progress')
    expect(await bar.getAttribute('data-tone')).toBe('stopped')
    expect(Number(await bar.getAttribute('aria-valuenow'))).toBeLessThan(100)
    expect(await page.locator('[data-testid=item-status]', { hasText: 'Not started' }).count()).toBeGreaterThanOrEqual(1)
    await screenshots(page, 'stopped-batch', showHead, async (size) => {
      await oneLine(page.locator('.batch-title'))
      await rowsFit(page, size.width)
    })
  })

  it('a batch with failures says "Done with 2 errors", each in plain words, the system text behind Details', async () => {
    const jpeg = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#a040a0' } })
      .jpeg()
      .toBuffer()
    const dir = await folder('mixed', 1, { 'broken.png': 'not a png at all', 'cut.jpg': jpeg.subarray(0, Math.floor(jpeg.length * 0.6)) })
    await start(dir, join(root, 'out-mixed'))
    await expect.poll(() => outcome().textContent(), { timeout: 240_000 }).toBe('Done with 2 errors')
    expect(await page.getByTestId('batch-progress').getAttribute('data-tone')).toBe('warn')
    const cut = page.locator('[data-testid=batch-item]', { hasText: 'cut.jpg' })
    expect(await cut.getByTestId('item-error').textContent()).toBe('This JPEG is damaged: it ends early (the file was cut short)')
    const broken = page.locator('[data-testid=batch-item]', { hasText: 'broken.png' })
    expect(await broken.getByTestId('item-error').textContent()).toMatch(/^This file is not an image Clipdesk reads/)
    expect(await page.locator('[data-testid=item-list]').textContent()).not.toMatch(/VipsJpeg|premature|Input buffer/)

    // Details: the plain words and the system's text; Esc gives focus back to the Details button.
    await cut.getByTestId('item-error-details').click()
    expect(await page.getByTestId('problem-raw').textContent()).toContain('premature end of JPEG')
    await page.keyboard.press('Escape')
    await expect.poll(() => page.getByTestId('problem-dialog').count(), { timeout: 10_000 }).toBe(0)
    await expect
      .poll(() => page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label')), { timeout: 10_000 })
      .toBe('Details of the problem with cut.jpg')

    // Retry keeps the real error in view until the retry's own result (here: the same error again).
    await page.evaluate(() => {
      const g = globalThis as any
      g.errorsSeen = []
      const row = () => [...g.document.querySelectorAll('[data-testid=batch-item]')].find((r: any) => r.textContent.includes('cut.jpg'))
      new g.MutationObserver(() => g.errorsSeen.push(row()?.querySelector('[data-testid=item-error]')?.textContent ?? '(none)')).observe(
        g.document.body,
        {
          subtree: true,
          childList: true,
          characterData: true
        }
      )
    })
    // The retry's own run is told by its new job (the API's view of the file): a damaged file can
    // fail again before the screen draws "Retrying", so the screen alone cannot tell it ran.
    const jobBefore = (await cutItem()).job_id
    expect(jobBefore).not.toBeNull()
    await cut.getByTestId('retry-item').click()
    await expect.poll(async () => (await cutItem()).job_id, { timeout: 60_000 }).not.toBe(jobBefore)
    await expect.poll(async () => (await cutItem()).state, { timeout: 120_000 }).toBe('failed')
    await expect.poll(() => outcome().textContent(), { timeout: 120_000 }).toBe('Done with 2 errors')
    await expect
      .poll(() => cut.getByTestId('item-error').textContent())
      .toBe('This JPEG is damaged: it ends early (the file was cut short)')
    const seen: string[] = await page.evaluate(() => (globalThis as any).errorsSeen)
    for (const text of seen) expect(text).toMatch(/This JPEG is damaged: it ends early/)
    // A file refused when it was added has nothing kept to run again: the retry says so, its error stays.
    await broken.getByTestId('retry-item').click()
    await expect
      .poll(() => page.getByTestId('batch-error').textContent())
      .toContain('This file cannot be retried: it was refused when added')
    expect(await broken.getByTestId('item-error').textContent()).toMatch(/^This file is not an image Clipdesk reads/)
    await page.getByTestId('batch-error').getByRole('button', { name: 'Dismiss' }).click()
    await screenshots(page, 'batch-with-failures', showHead, (size) => rowsFit(page, size.width))
  })

  it('a batch whose every file failed is "Failed", in red, with an empty bar', async () => {
    const dir = await folder('bad', 0, { 'a.png': 'not a png', 'b.jpg': 'not a jpeg' })
    await start(dir, join(root, 'out-bad'))
    await expect.poll(() => outcome().textContent(), { timeout: 120_000 }).toBe('Failed: none of the 2 files could be made')
    expect(await page.getByTestId('batch-progress').getAttribute('data-tone')).toBe('failed')
    expect(await page.getByTestId('batch-progress').getAttribute('aria-valuenow')).toBe('0')
    expect(pageErrors).toEqual([])
  })
})
