/**
 * One app session for a browser e2e file: a real `clipdesk serve` on a fresh data folder, the
 * built renderer in Chromium, signed in with the owner key, on the Batches screen. Page errors
 * are collected so that a test can assert there were none.
 */
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { startServe, type ServeProcess } from '../helpers/cli'
import { tempDir } from '../helpers/engine'
import { launchChromium } from './chromium'

export interface AppSession {
  root: string
  serve: ServeProcess
  context: BrowserContext
  page: Page
}

/** Starts the session; `pageErrors` receives every uncaught error of the page. */
export async function openApp(prefix: string, pageErrors: string[]): Promise<AppSession> {
  if (!existsSync(join(import.meta.dirname, '../../out/renderer/index.html')))
    throw new Error('the renderer is not built: run `npm run build` first')
  const root = tempDir(prefix)
  const serve = await startServe(join(root, 'data'))
  const context = await launchChromium()
  const page = context.pages()[0] ?? (await context.newPage())
  page.on('pageerror', (err) => pageErrors.push(err.message))
  await page.goto(`http://127.0.0.1:${serve.port}/`)
  await page.getByTestId('api-key-input').fill(serve.key!)
  await page.getByTestId('connect').click()
  await page.getByTestId('nav-batches').waitFor()
  return { root, serve, context, page }
}

/** Closes what `openApp` started, whatever of it did start. */
export async function closeApp(s: Partial<AppSession>): Promise<void> {
  await s.context?.close()
  if (s.serve && s.serve.child.exitCode === null) {
    s.serve.child.kill('SIGTERM')
    await s.serve.exited
  }
  if (s.root) rmSync(s.root, { recursive: true, force: true })
}

/** One app method over the bridge (`POST /api/app/<method>`) with `key`; throws unless it answers 200. */
export async function appCall<T>(port: number, key: string, method: string, arg?: unknown): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${port}/api/app/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
    body: arg === undefined ? '' : JSON.stringify(arg)
  })
  if (res.status !== 200) throw new Error(`${method}: ${res.status} ${await res.text()}`)
  return (await res.json()) as T
}
