/**
 * End to end, results leave the browser app as downloads (docs/batches.md "Results that leave
 * the app"): a batch of two photos, then "Download" on one row saves that file's bytes, and
 * "Download all (zip)" saves a zip of both with the destination's folders, checked by Python's
 * zipfile. Built renderer in Chromium against a real `clipdesk serve` (real model).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServeProcess } from '../helpers/cli'
import { scenePng, tinyPng } from '../helpers/fixtures'
import { closeApp, openApp } from './app-session'
import { hasChromium, SKIP_REASON } from './chromium'

const title = hasChromium ? 'downloads of a result and of a batch, in Chromium against clipdesk serve' : `downloads — ${SKIP_REASON}`

describe.skipIf(!hasChromium)(title, () => {
  let root: string
  let serve: ServeProcess
  let context: BrowserContext
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    ;({ root, serve, context, page } = await openApp('clipdesk-e2e-downloads-', pageErrors))
  })
  afterAll(() => closeApp({ root, serve, context }))

  it('downloads one result, then the whole batch as a zip', async () => {
    const dir = join(root, 'in', 'shoot')
    mkdirSync(join(dir, 'day1'), { recursive: true })
    writeFileSync(join(dir, 'ball.png'), await scenePng())
    writeFileSync(join(dir, 'day1', 'dot.png'), await tinyPng(64, 48))
    const destination = join(root, 'out')
    await page.getByTestId('folder-input').setInputFiles(dir)
    await page.getByTestId('batch-destination').fill(destination)
    await page.getByTestId('start-batch').click()
    await expect.poll(() => page.getByTestId('batch-outcome').textContent(), { timeout: 240_000 }).toBe('Done: all 2 files')

    const row = page.getByTestId('batch-item').filter({ hasText: 'ball.png' })
    const [one] = await Promise.all([page.waitForEvent('download'), row.getByTestId('download-result').click()])
    expect(one.suggestedFilename()).toBe('ball.png')
    const saved = join(root, 'saved-ball.png')
    await one.saveAs(saved)
    expect(readFileSync(saved).equals(readFileSync(join(destination, 'shoot', 'ball.png')))).toBe(true)

    const [all] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-batch').click()])
    expect(all.suggestedFilename()).toMatch(/\.zip$/)
    const zip = join(root, 'saved.zip')
    await all.saveAs(zip)
    const listing = execFileSync(
      'python3',
      [
        '-c',
        'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print("\\n".join(sorted(z.namelist())))',
        zip
      ],
      { encoding: 'utf8' }
    )
    // The batch's report beside its files, as in its destination.
    expect(listing.trim().split('\n')).toEqual(['clipdesk-report.json', 'clipdesk-report.txt', 'shoot/ball.png', 'shoot/day1/dot.png'])
    expect(pageErrors).toEqual([])
  })
})
