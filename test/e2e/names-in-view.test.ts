/**
 * End to end, the Batches screen always says which file is which, and says its warnings where
 * the work is seen: long names cut in their middle (the extension and last words kept) on every
 * row, beside a "Likely wrong" badge and in the "Likely wrong" list; the folder line readable; a
 * batch whose files carry warnings ends "Done with N warnings" in amber, each row giving the
 * warning's words; the form counts the files that will run ("Start (3 files)" beside a text
 * file); the menus hold their choices whole; an interrupted batch's head shows its name and its
 * settings on full lines; the preset editor's preview shows the warning its job gives. At
 * 1280×800 and 900×700, light and dark, screenshots in test-results/e2e/names-*.png.
 * Built renderer in Chromium against a real `clipdesk serve` (real model).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BatchDetail, BatchSummary } from '../../src/shared/batches'
import { startServe, type ServeProcess } from '../helpers/cli'
import { tempDir } from '../helpers/engine'
import { clutterPng, scenePng } from '../helpers/fixtures'
import { appCall } from './app-session'
import { hasChromium, launchChromium, SKIP_REASON } from './chromium'
import { box, menuFits, readable, rowsFit, screenshots, shownText } from './views'

const title = hasChromium
  ? 'names and warnings in view on the Batches screen, in Chromium against clipdesk serve'
  : `names in view — ${SKIP_REASON}`

const FOLDER = 'animals-and-portraits-for-the-spring-catalogue/day-one-studio'
const LARGE = 'animal-portrait-on-grass-with-a-long-descriptive-name-large.png'
const SMALL = 'animal-portrait-on-grass-with-a-long-descriptive-name-small.png'
const CLUTTER = 'clutter-on-the-workbench-the-model-cannot-cut-out.png'
const INTERRUPTED = 'Resumed shoot of the autumn catalogue: shoes, bags and belts'

describe.skipIf(!hasChromium)(title, () => {
  let root: string
  let dataDir: string
  let serve: ServeProcess
  let key: string
  let context: BrowserContext
  let page: Page
  const pageErrors: string[] = []

  async function signIn(): Promise<void> {
    await page.goto(`http://127.0.0.1:${serve.port}/`)
    await page.getByTestId('api-key-input').fill(key)
    await page.getByTestId('connect').click()
    await page.getByTestId('nav-batches').waitFor()
  }

  beforeAll(async () => {
    root = tempDir('clipdesk-e2e-names-')
    dataDir = join(root, 'data')
    serve = await startServe(dataDir)
    key = serve.key!
    context = await launchChromium()
    page = context.pages()[0] ?? (await context.newPage())
    page.on('pageerror', (err) => pageErrors.push(err.message))
    await signIn()
  })

  afterAll(async () => {
    await context?.close()
    if (serve && serve.child.exitCode === null && serve.child.signalCode === null) {
      serve.child.kill('SIGTERM')
      await serve.exited
    }
    if (root) rmSync(root, { recursive: true, force: true })
  })

  const rows = () => page.getByTestId('batch-item')

  /** Every row in view shows its name and its folder; its state and buttons stay in the window. */
  async function namesShown(width: number): Promise<void> {
    const n = await rows().count()
    expect(n).toBeGreaterThan(0)
    for (let i = 0; i < n; i++) {
      const row = rows().nth(i)
      await row.scrollIntoViewIfNeeded()
      await readable(row.getByTestId('item-name'), `row ${i}'s name at ${width} px`)
      // The end of the name and its extension are drawn whole.
      const tail = await shownText(row.getByTestId('item-name').locator('.middle-tail'))
      expect(tail.text).toMatch(/\.(png|txt)$/)
      expect(tail.shown).toBe([...tail.text].length)
      // The folder leads the second line, but for a problem's line (the text file's), which takes it all.
      if ((await row.getByTestId('item-error').count()) === 0)
        await readable(row.getByTestId('item-folder'), `row ${i}'s folder at ${width} px`)
    }
    await rowsFit(page, width)
  }

  it('names every row beside its badges, in the "Likely wrong" list too; the batch ends "Done with N warnings"', {
    timeout: 420_000
  }, async () => {
    const dir = join(root, 'in', ...FOLDER.split('/'))
    mkdirSync(dir, { recursive: true })
    const scene = await scenePng()
    writeFileSync(join(dir, LARGE), scene)
    writeFileSync(join(dir, SMALL), await sharp(scene).resize(240).png().toBuffer())
    writeFileSync(join(dir, CLUTTER), await clutterPng())
    writeFileSync(join(dir, 'notes-for-the-retoucher.txt'), 'keep the shadows soft')
    await page.getByTestId('folder-input').setInputFiles(join(root, 'in', 'animals-and-portraits-for-the-spring-catalogue'))
    await expect.poll(() => page.getByTestId('staged-count').textContent()).toContain('3 files ready')
    expect(await page.getByTestId('staged-not-images').textContent()).toContain('1 not an image')
    // The button counts the files that will run, not the text file listed beside them.
    expect(await page.getByTestId('start-batch').textContent()).toBe('Start (3 files)')

    // The menus hold each of their choices whole, at both sizes.
    await screenshots(
      page,
      'names-new-batch',
      () => page.getByTestId('batch-preset').scrollIntoViewIfNeeded(),
      async (size) => {
        // The files ready to start: each by its own name.
        const staged = page.getByTestId('staged-name')
        expect(await staged.count()).toBe(4)
        for (let i = 0; i < 4; i++) await readable(staged.nth(i), `staged file ${i} at ${size.width} px`)
        await menuFits(page.getByTestId('batch-preset'), `the Preset menu at ${size.width} px`)
        await menuFits(page.locator('select', { has: page.locator('option[value=clipping]') }).first(), `the Mode menu at ${size.width} px`)
        await menuFits(page.getByTestId('batch-format'), `the Format menu at ${size.width} px`)
      }
    )

    // A small photo enlarged to fill 2000×2000: each file's main file gets a warning.
    await page.getByTestId('batch-preset').selectOption('ecommerce-white')
    await page.getByTestId('batch-destination').fill(join(root, 'out'))
    await page.getByTestId('start-batch').click()
    const outcome = page.getByTestId('batch-outcome')
    await expect.poll(() => outcome.getAttribute('data-kind'), { timeout: 300_000 }).toBe('done-with-warnings')
    const batch = (await appCall<BatchSummary[]>(serve.port, key, 'batchesList'))[0]!
    const detail = await appCall<BatchDetail>(serve.port, key, 'batchGet', batch.id)
    const warnings = detail.items.reduce((n, i) => n + i.warnings.length, 0)
    expect(warnings).toBeGreaterThanOrEqual(3)
    expect(await outcome.textContent()).toBe(`Done with ${warnings} warnings`)
    expect(await page.getByTestId('batch-progress').getAttribute('data-tone')).toBe('warn')
    // The list of batches says it the same way.
    expect(await page.locator('.history .outcome').first().textContent()).toBe(`Done with ${warnings} warnings`)

    // Each row gives its warning's own words, drawn, not only a count.
    const warned = page.getByTestId('item-warning')
    await expect.poll(() => warned.count()).toBe(3)
    for (const text of await warned.allTextContents()) expect(text).toMatch(/^⚠ With shadow: enlarged [\d.]+×: the subject/)
    await expect.poll(() => page.locator('[data-testid=review-badge][data-level=likely-wrong]').count()).toBe(1)

    await screenshots(
      page,
      'names-batch-rows',
      () => page.getByTestId('item-list').scrollIntoViewIfNeeded(),
      async (size) => {
        await namesShown(size.width)
        for (let i = 0; i < 3; i++) await readable(warned.nth(i), `row ${i}'s warning at ${size.width} px`, 24)
      }
    )

    // The "Likely wrong" list: the clutter's row alone, with its name.
    await page.getByTestId('filter-likely-wrong').click()
    await expect.poll(() => rows().count()).toBe(1)
    expect(await rows().getByTestId('item-name').textContent()).toBe(CLUTTER)
    await screenshots(
      page,
      'names-likely-wrong',
      () => page.getByTestId('item-list').scrollIntoViewIfNeeded(),
      (size) => namesShown(size.width)
    )
    await page.getByRole('button', { name: 'All files' }).click()
  })

  it('shows the warning a preset’s job gives under its live preview', async () => {
    await page.getByTestId('nav-presets').click()
    await page.getByTestId('new-preset').click()
    await page.getByTestId('preset-name').fill('Big square')
    await page.getByTestId('param-background').selectOption('color')
    await page.getByTestId('param-color').fill('#FFFFFF')
    await page.getByTestId('param-crop').selectOption('subject')
    await page.getByTestId('param-size').selectOption('box')
    // The sample's 200 px ball filling a 2000×2000 square.
    const warning = page.getByTestId('preview-warning')
    await expect
      .poll(() => warning.textContent(), { timeout: 180_000 })
      .toMatch(/^⚠ On background: enlarged \d+\.\d×: the subject .* looks soft/)
    await screenshots(
      page,
      'names-preview-warning',
      () => page.getByTestId('preset-preview-panel').scrollIntoViewIfNeeded(),
      async () => {
        await readable(warning, 'the preview’s warning', 40)
      }
    )
    await page.getByTestId('nav-batches').click()
  })

  it('shows an interrupted batch’s name and its settings on full lines', async () => {
    // A batch whose files are sent, then the server killed before it runs them.
    const dir = join(root, 'in', 'autumn')
    mkdirSync(dir, { recursive: true })
    const scene = await scenePng()
    const files: Array<{ path: string }> = []
    for (let i = 0; i < 4; i++) {
      const file = join(dir, `leather-belt-on-a-wooden-table-${i}.png`)
      writeFileSync(
        file,
        await sharp(scene)
          .rotate(90 * i)
          .png()
          .toBuffer()
      )
      files.push({ path: file })
    }
    const created = await appCall<BatchSummary>(serve.port, key, 'batchCreate', {
      name: INTERRUPTED,
      request: { mode: 'params', params: 'ecommerce-white', output_format: 'png' },
      destination: join(root, 'out-autumn', 'catalogue', 'shoes-bags-and-belts')
    })
    await appCall(serve.port, key, 'batchAdd', { batch_id: created.id, files })
    serve.child.kill('SIGKILL')
    await serve.exited
    serve = await startServe(dataDir)
    await signIn()
    await page.locator('.history button.open', { hasText: INTERRUPTED }).click()
    await page.getByTestId('batch-interrupted').waitFor()
    expect(await page.getByTestId('resume-batch').count()).toBe(1)

    await screenshots(
      page,
      'names-interrupted-head',
      () => page.getByTestId('batch-title').scrollIntoViewIfNeeded(),
      async (size) => {
        await readable(page.getByTestId('batch-title'), `the head's name at ${size.width} px`, 24)
        await readable(page.getByTestId('batch-destination-line'), `the head's destination at ${size.width} px`)
        // The settings run along the head, not down a narrow column beside the buttons.
        const head = await box(page.locator('.batch-head'))
        const settings = await box(page.getByTestId('batch-settings'))
        expect(settings.width).toBeGreaterThan(head.width * 0.5)
        expect(settings.height).toBeLessThan(3 * 20)
        for (const name of await page.locator('.history .name').all()) await readable(name, `a batch in the list at ${size.width} px`)
      }
    )
    expect(pageErrors).toEqual([])
  })
})
