/**
 * End to end: the built renderer in Debian's Chromium against a real `clipdesk serve --queue`
 * (no local worker, real Redis on a free loopback port) with one real `clipdesk worker` on the
 * workers' listener: the worker appears on the API screen, and its job count moves live when
 * it finishes a job (the real model, one small image). Screenshots go to test-results/e2e/.
 */
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServeProcess } from '../helpers/cli'
import { multipart, tempDir } from '../helpers/engine'
import { scenePng } from '../helpers/fixtures'
import {
  REDIS_MISSING_MESSAGE,
  REDIS_SERVER,
  createKey,
  startCoordinator,
  startRedis,
  startWorker,
  workerListenPort,
  type RedisProcess,
  type WorkerProcess
} from '../helpers/studio'
import { ARTIFACTS, hasChromium, launchChromium, SKIP_REASON } from './chromium'

const skip = !hasChromium ? SKIP_REASON : !REDIS_SERVER ? REDIS_MISSING_MESSAGE : null
if (skip) console.warn(`e2e studio screen: ${skip}`)

describe.skipIf(skip !== null)('studio workers on the API screen, in Chromium', () => {
  let root: string
  let redis: RedisProcess
  let serve: ServeProcess
  let worker: WorkerProcess
  let owner: string
  let client: string
  let context: BrowserContext
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    if (!existsSync(join(import.meta.dirname, '../../out/renderer/index.html')))
      throw new Error('the renderer is not built: run `npm run build` first')
    root = tempDir('clipdesk-e2e-studio-')
    const data = join(root, 'data')
    redis = await startRedis()
    owner = createKey(data, ['--admin', '--credits', 'unlimited'])
    client = createKey(data, ['--credits', '5'])
    const workerKey = createKey(data, ['--worker'])
    serve = await startCoordinator(data, redis.url, ['--worker-listen', '127.0.0.1:0'])
    worker = await startWorker(redis.url, await workerListenPort(serve), workerKey, 'e2e-worker')
    context = await launchChromium()
    page = context.pages()[0] ?? (await context.newPage())
    page.on('pageerror', (err) => pageErrors.push(err.message))
  })

  afterAll(async () => {
    await context?.close()
    worker?.child.kill('SIGTERM')
    await worker?.exited
    serve?.child.kill('SIGTERM')
    await serve?.exited
    await redis?.stop()
    if (root) rmSync(root, { recursive: true, force: true })
  })

  it('shows the connected worker, and its jobs done as they change', async () => {
    const base = `http://127.0.0.1:${serve.port}`
    await page.goto(`${base}/`)
    await page.getByTestId('api-key-input').fill(owner)
    await page.getByTestId('connect').click()
    await page.getByTestId('nav-api').click()
    const row = page.locator('[data-testid=worker-row][data-worker=e2e-worker]')
    await row.waitFor({ timeout: 30_000 })
    await expect.poll(() => page.getByTestId('queue-status').locator('.badge').textContent()).toBe('reachable')
    expect(await row.textContent()).toContain('cpu')
    expect(await row.getByTestId('worker-jobs').textContent()).toBe('0')
    // The worker's key is marked as one in the key list.
    expect(await page.locator('[data-testid=key-row]', { hasText: 'worker' }).count()).toBe(1)

    // One job through the public API: the screen follows without a reload.
    const res = await fetch(`${base}/api/v1/upload`, {
      method: 'POST',
      headers: { 'X-API-Key': client },
      body: multipart({}, { bytes: await scenePng(), type: 'image/png' })
    })
    expect(res.status).toBe(202)
    await expect.poll(() => row.getByTestId('worker-jobs').textContent(), { timeout: 120_000, interval: 250 }).toBe('1')
    expect(await row.textContent()).toMatch(/\d+ jobs\/h/)
    await page.screenshot({ path: join(ARTIFACTS, 'studio-workers.png') })
    expect(pageErrors).toEqual([])
  }, 240_000)

  it('takes a queue address in Settings only when it is redis:// or rediss://, and says it applies after a restart', async () => {
    await page.getByTestId('nav-settings').click()
    const address = page.getByTestId('queue-url')
    await address.fill('http://queue-host:6379')
    await expect
      .poll(() => page.getByTestId('queue-url-problem').textContent())
      .toContain('expected a redis:// or rediss:// address, not http://')
    expect(await page.getByTestId('save-studio').isDisabled()).toBe(true)
    await address.fill('redis://queue-host:6379')
    expect(await page.getByTestId('queue-url-problem').count()).toBe(0)
    await page.getByTestId('local-worker').uncheck()
    await page.getByTestId('save-studio').click()
    await expect.poll(() => page.getByTestId('studio-restart').textContent()).toContain('Restart clipdesk serve')
    await page.screenshot({ path: join(ARTIFACTS, 'studio-settings.png') })
    expect(pageErrors).toEqual([])
  })
})
