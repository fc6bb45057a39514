/**
 * End to end: the built renderer in Debian's Chromium against a real `clipdesk serve`
 * (the built command, real model, real sockets on 127.0.0.1). Adds files and a folder
 * through the file inputs, runs the batch to done, follows the progress to 100 %, opens the
 * before/after view, creates a preset with a live preview, creates and revokes a key, and
 * finds the batch again after the server restarts. Screenshots go to test-results/e2e/.
 */
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServe, type ServeProcess } from '../helpers/cli'
import { tempDir } from '../helpers/engine'
import { ARTIFACTS, hasChromium, launchChromium, SKIP_REASON } from './chromium'
import { createAndRevokeKey, createPreset, expectOutputs, expectProgressMoved, runBatch, useBeforeAfter, writeInputs } from './flow'

const title = hasChromium ? 'the app in Chromium against clipdesk serve' : `the app in Chromium — ${SKIP_REASON}`
if (!hasChromium) console.warn(`e2e browser tests: ${SKIP_REASON}`)

describe.skipIf(!hasChromium)(title, () => {
  let root: string
  let dataDir: string
  let serve: ServeProcess
  let key: string
  let context: BrowserContext
  let page: Page
  const pageErrors: string[] = []

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `browser-${name}`) })
  const base = () => `http://127.0.0.1:${serve.port}`

  async function signIn(): Promise<void> {
    await page.goto(`${base()}/`)
    await page.getByTestId('api-key-input').fill(key)
    await page.getByTestId('connect').click()
    await page.getByTestId('nav-batches').waitFor()
  }

  beforeAll(async () => {
    if (!existsSync(join(import.meta.dirname, '../../out/renderer/index.html')))
      throw new Error('the renderer is not built: run `npm run build` first')
    root = tempDir('clipdesk-e2e-')
    dataDir = join(root, 'data')
    serve = await startServe(dataDir)
    expect(serve.key).toMatch(/^cdk_/) // the owner key printed on an empty data folder
    key = serve.key!
    context = await launchChromium()
    page = context.pages()[0] ?? (await context.newPage())
    page.on('pageerror', (err) => pageErrors.push(err.message))
  })

  afterAll(async () => {
    await context?.close()
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGTERM')
      await serve.exited
    }
    if (root) rmSync(root, { recursive: true, force: true })
  })

  it('signs in with the owner key, refusing a wrong one', async () => {
    await page.goto(`${base()}/`)
    await page.getByTestId('api-key-input').fill('cdk_wrong')
    await page.getByTestId('connect').click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not valid')
    await shot('0-connect.png')
    await signIn()
  })

  it('runs a batch of a folder and a file to done, with progress up to 100 %', async () => {
    const out = join(root, 'out')
    const seen = await runBatch(page, await writeInputs(root), out, () => shot('1-batch-running.png'))
    await shot('2-batch-done.png')
    expectProgressMoved(seen)
    await expectOutputs(out)
    // A browser cannot open folders: it is shown the path.
    await page.getByTestId('open-output').click()
    await expect.poll(() => page.getByTestId('output-notice').textContent()).toContain(out)
  })

  it('opens the before/after view with a slider and zoom', async () => {
    await useBeforeAfter(page, () => shot('3-before-after.png'))
  })

  it('creates a preset with a live preview, usable in the next batch', async () => {
    await createPreset(page, 'e2e-white', () => shot('4-preset.png'))
  })

  it('creates a key shown once, and revokes it', async () => {
    const status = (k: string) => fetch(`${base()}/api/v1/status?job_id=x`, { headers: { 'X-API-Key': k } }).then((r) => r.status)
    await createAndRevokeKey(page, 'e2e script', async (secret, phase) => {
      if (phase === 'created') {
        expect(await status(secret)).toBe(422) // accepted key; the job id is what is wrong
        await expect.poll(() => page.getByTestId('curl-example').textContent()).toContain(`${base()}/api/v1/upload`)
        // The example is the chosen key's (just made: its secret is in it) and follows the job by the id from the answer.
        const example = (await page.getByTestId('curl-example').textContent())!
        expect(example).toContain(`CLIPDESK_KEY='${secret}'`)
        expect(example).not.toMatch(/<job_id>|cdk_…/)
        expect(example).toContain(`/api/v1/status?job_id='"$JOB"`)
        await shot('5-key-created.png')
      } else {
        expect(await status(secret)).toBe(401)
      }
    })
  })

  it('finds the batch and its results again after the server restarts', async () => {
    serve.child.kill('SIGTERM')
    expect(await serve.exited).toBe(0)
    serve = await startServe(dataDir)
    expect(serve.key).toBeNull() // keys exist: none printed
    await signIn() // another port is another origin: the key is asked again
    await expect.poll(() => page.locator('[data-testid=batch-item][data-state=done]').count()).toBe(3)
    expect(await page.getByTestId('batch-outcome').textContent()).toBe('Done: all 3 files')
    await page.getByTestId('nav-settings').click()
    await page.getByTestId('theme').selectOption('dark')
    await page.getByTestId('nav-batches').click()
    await shot('6-after-restart-dark.png')
    expect(pageErrors).toEqual([])
  })
})
