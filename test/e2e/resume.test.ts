/**
 * End to end: a batch interrupted by a crash is resumed from the app. The built renderer in
 * Debian's Chromium against a real `clipdesk serve` (real model): a batch of five small photos
 * drawn in code is started, the server is killed (SIGKILL) once some are done, started again on
 * the same data folder, and the app offers "Resume". After it, every photo has exactly one
 * output, the photos done before the crash kept their job and their file, and no photo ran twice.
 */
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BatchDetail, BatchSummary } from '../../src/shared/batches'
import { openDatabase } from '../../src/main/engine/store/db'
import { startServe, type ServeProcess } from '../helpers/cli'
import { tempDir } from '../helpers/engine'
import { scenePng } from '../helpers/fixtures'
import { appCall } from './app-session'
import { ARTIFACTS, hasChromium, launchChromium, SKIP_REASON } from './chromium'

const PHOTOS = 5
const title = hasChromium
  ? 'resuming an interrupted batch in Chromium against clipdesk serve'
  : `resuming an interrupted batch — ${SKIP_REASON}`

describe.skipIf(!hasChromium)(title, () => {
  let root: string
  let dataDir: string
  let serve: ServeProcess
  let key: string
  let context: BrowserContext
  let page: Page
  const pageErrors: string[] = []
  const base = () => `http://127.0.0.1:${serve.port}`

  const app = <T>(method: string, arg?: unknown): Promise<T> => appCall<T>(serve.port, key, method, arg)

  async function signIn(): Promise<void> {
    await page.goto(`${base()}/`)
    await page.getByTestId('api-key-input').fill(key)
    await page.getByTestId('connect').click()
    await page.getByTestId('nav-batches').waitFor()
  }

  beforeAll(async () => {
    root = tempDir('clipdesk-e2e-resume-')
    dataDir = join(root, 'data')
    serve = await startServe(dataDir)
    key = serve.key!
    context = await launchChromium()
    page = context.pages()[0] ?? (await context.newPage())
    page.on('pageerror', (err) => pageErrors.push(err.message))
  })

  afterAll(async () => {
    await context?.close()
    if (serve && serve.child.exitCode === null && serve.child.signalCode === null) {
      serve.child.kill('SIGTERM')
      await serve.exited
    }
    if (root) rmSync(root, { recursive: true, force: true })
  })

  it('finishes the remaining files only after the server was killed', async () => {
    // Five different small photos: the scene, mirrored, turned, and tinted.
    const scene = await scenePng()
    const photos = [
      scene,
      await sharp(scene).flop().png().toBuffer(),
      await sharp(scene).flip().png().toBuffer(),
      await sharp(scene).rotate(180).png().toBuffer(),
      await sharp(scene).modulate({ hue: 90 }).png().toBuffer()
    ]
    const folder = join(root, 'in', 'shoot')
    mkdirSync(folder, { recursive: true })
    for (const [i, bytes] of photos.entries()) writeFileSync(join(folder, `p${i}.png`), bytes)
    const out = join(root, 'out')

    await signIn()
    await page.getByTestId('folder-input').setInputFiles(folder)
    await expect.poll(() => page.getByTestId('staged-count').textContent()).toContain(`${PHOTOS} files ready`)
    await page.getByTestId('batch-destination').fill(out)
    await page.getByTestId('start-batch').click()

    // Killed as soon as two photos are done (the others queued or running).
    let batch: BatchSummary | undefined
    await expect
      .poll(
        async () => {
          batch = (await app<BatchSummary[]>('batchesList'))[0]
          return batch?.counts.done ?? 0
        },
        { timeout: 240_000, interval: 50 }
      )
      .toBeGreaterThanOrEqual(2)
    serve.child.kill('SIGKILL')
    expect(await serve.exited).toBe('SIGKILL')
    // The page says plainly that the server is gone and what is left, and stops counting time left.
    const gone = page.getByTestId('server-gone')
    await gone.waitFor()
    expect(await gone.textContent()).toMatch(
      /^Clipdesk stopped or cannot be reached; [1-5] files? will continue when it is back \(Resume on the batch\)\.$/
    )
    await expect.poll(() => page.getByTestId('batch-outcome').textContent()).toMatch(/^Clipdesk stopped: [0-4] of 5 done, [1-5] left$/)
    expect(await page.getByTestId('batch-count').textContent()).not.toContain(' left')
    await page.screenshot({ path: join(ARTIFACTS, 'resume-0-server-gone.png') })

    serve = await startServe(dataDir)
    await signIn() // another port is another origin: the key is asked again
    const held = await app<BatchDetail>('batchGet', batch!.id)
    const doneBefore = held.items.filter((i) => i.state === 'done')
    expect(held.interrupted).toBe(true)
    expect(doneBefore.length).toBeGreaterThanOrEqual(2)
    expect(doneBefore.length).toBeLessThan(PHOTOS) // the crash left work to resume
    expect(held.counts.waiting).toBe(PHOTOS - doneBefore.length)
    const before = new Map(doneBefore.map((i) => [i.id, { job: i.job_id, mtime: statSync(i.outputs[0]!).mtimeMs }]))

    await page.getByTestId('batch-interrupted').waitFor()
    expect(await page.getByTestId('batch-interrupted').textContent()).toContain(`${PHOTOS - doneBefore.length} files are left`)
    await page.screenshot({ path: join(ARTIFACTS, 'resume-1-interrupted.png') })
    await page.getByTestId('resume-batch').click()
    await page.waitForFunction(
      (n) => (globalThis as any).document.querySelectorAll('[data-testid=batch-item][data-state=done]').length === n,
      PHOTOS,
      { timeout: 240_000 }
    )
    await expect.poll(() => page.getByTestId('batch-outcome').textContent()).toBe(`Done: all ${PHOTOS} files`)
    expect(await page.getByTestId('resume-batch').count()).toBe(0)
    await page.screenshot({ path: join(ARTIFACTS, 'resume-2-done.png') })

    // Exactly one output per photo; the report beside them.
    const written = readdirSync(join(out, 'shoot')).sort()
    expect(written).toEqual(['p0.png', 'p1.png', 'p2.png', 'p3.png', 'p4.png'])
    await expect
      .poll(() =>
        readdirSync(out)
          .filter((f) => f.startsWith('clipdesk-report.'))
          .sort()
      )
      .toEqual(['clipdesk-report.json', 'clipdesk-report.txt'])
    // The photos done before the crash were not run again: same job, same file.
    const after = await app<BatchDetail>('batchGet', batch!.id)
    for (const item of after.items) {
      const was = before.get(item.id)
      if (!was) continue
      expect(item.job_id).toBe(was.job)
      expect(statSync(item.outputs[0]!).mtimeMs).toBe(was.mtime)
    }
    expect(pageErrors).toEqual([])

    // And in the engine's own records: five photos, five jobs run to done.
    serve.child.kill('SIGTERM')
    expect(await serve.exited).toBe(0)
    const db = openDatabase(join(dataDir, 'clipdesk.db'))
    try {
      const row = db.prepare("SELECT count(*) AS n FROM jobs WHERE status = 'done'").get() as { n: number }
      expect(Number(row.n)).toBe(PHOTOS)
    } finally {
      db.close()
    }
  })
})
