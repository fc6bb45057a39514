/**
 * The steps of the app's main flow, shared by the Chromium test (browser against
 * `clipdesk serve`) and the Electron test (the desktop window): the same renderer, the same
 * test ids, whichever transport is underneath.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import sharp from 'sharp'
import { expect } from 'vitest'
import { sceneJpeg, scenePng } from '../helpers/fixtures'

/** Inputs drawn in code: a folder `photos` with a sub-folder, and a loose file. */
export async function writeInputs(root: string): Promise<{ folder: string; single: string }> {
  mkdirSync(join(root, 'in', 'photos', 'studio'), { recursive: true })
  writeFileSync(join(root, 'in', 'photos', 'ball.png'), await scenePng())
  writeFileSync(join(root, 'in', 'photos', 'studio', 'ball-2.jpg'), await sceneJpeg())
  writeFileSync(
    join(root, 'in', 'single.png'),
    await sharp(await scenePng())
      .flop()
      .png()
      .toBuffer()
  )
  return { folder: join(root, 'in', 'photos'), single: join(root, 'in', 'single.png') }
}

/** Output files the batch of `writeInputs` makes, relative to the destination. */
export const EXPECTED_OUTPUTS = ['photos/ball.png', 'photos/studio/ball-2.png', 'single.png']

/** Drops a file on the window as a user's drag-and-drop would (a DataTransfer with the file). */
export async function dropFile(page: Page, name: string, bytes: Buffer): Promise<void> {
  await page.evaluate(
    ({ name, b64 }) => {
      const page = globalThis as any
      const data = Uint8Array.from(page.atob(b64), (c: string) => c.charCodeAt(0))
      const transfer = new page.DataTransfer()
      transfer.items.add(new page.File([data], name, { type: 'image/png' }))
      for (const type of ['dragenter', 'dragover', 'drop']) {
        page.document.body.dispatchEvent(new page.DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }))
      }
    },
    { name, b64: bytes.toString('base64') }
  )
}

/**
 * Adds the folder and the file through the file inputs, starts, and waits for 100 %.
 * Returns every value the overall progress bar showed; `onRunning` is called once it moved.
 */
export async function runBatch(
  page: Page,
  inputs: { folder: string; single: string },
  destination: string,
  onRunning: () => Promise<unknown>
): Promise<number[]> {
  await page.getByTestId('folder-input').setInputFiles(inputs.folder)
  await page.getByTestId('file-input').setInputFiles([inputs.single])
  await expect.poll(() => page.getByTestId('staged-count').textContent()).toContain('3 files ready')
  // A drop anywhere on the window stages files too; × takes one out again.
  await dropFile(
    page,
    'dropped.png',
    await sharp({ create: { width: 8, height: 8, channels: 3, background: '#4080c0' } })
      .png()
      .toBuffer()
  )
  await expect.poll(() => page.getByTestId('staged-count').textContent()).toContain('4 files ready')
  await page.getByRole('button', { name: 'Remove dropped.png' }).click()
  await expect.poll(() => page.getByTestId('staged-count').textContent()).toContain('3 files ready')
  await page.getByTestId('batch-destination').fill(destination)
  // Before Start, the screen says which files each photo gives: one per photo unless all variations are asked.
  expect(await page.getByTestId('batch-plan').textContent()).toContain('Each photo gives one file')
  expect(await page.getByTestId('planned-outputs').allTextContents()).toEqual(
    expect.arrayContaining([expect.stringMatching(/→ \S+\.png$/)])
  )
  // Every value the overall bar shows, recorded in the page as it changes.
  await page.evaluate(() => {
    const page = globalThis as any
    const seen: number[] = []
    page.progressSeen = seen
    new page.MutationObserver((records: any[]) => {
      for (const r of records) {
        if (r.target.getAttribute('data-testid') === 'batch-progress') seen.push(Number(r.target.getAttribute('aria-valuenow')))
      }
    }).observe(page.document.body, { subtree: true, attributes: true, attributeFilter: ['aria-valuenow'] })
  })
  await page.getByTestId('start-batch').click()
  // (Functions, not strings: the page's CSP allows no eval.)
  await page.waitForFunction(
    () => Number((globalThis as any).document.querySelector('[data-testid=batch-progress]')?.getAttribute('aria-valuenow')) > 0,
    null,
    {
      timeout: 240_000
    }
  )
  await onRunning()
  await page.waitForFunction(
    () => (globalThis as any).document.querySelector('[data-testid=batch-progress]')?.getAttribute('aria-valuenow') === '100',
    null,
    {
      timeout: 240_000
    }
  )
  await expect.poll(() => page.getByTestId('batch-outcome').textContent()).toBe('Done: all 3 files')
  // Green only because every file succeeded.
  expect(await page.getByTestId('batch-progress').getAttribute('data-tone')).toBe('done')
  await expect.poll(() => page.locator('[data-testid=batch-item][data-state=done]').count()).toBe(3)
  // The model and the device are not repeated on rows that all ran on the same (the before/after view says them).
  expect(await page.getByTestId('item-device').count()).toBe(0)
  return page.evaluate(() => (globalThis as any).progressSeen as number[])
}

/** The bar reached 100, moved through values in between, and never went back. */
export function expectProgressMoved(seen: number[]): void {
  expect(seen.at(-1)).toBe(100)
  expect(seen.some((v) => v > 0 && v < 100)).toBe(true)
  expect(seen).toEqual([...seen].sort((a, b) => a - b))
}

/** The results are cut-outs (RGBA), mirrored under the destination. */
export async function expectOutputs(destination: string): Promise<void> {
  for (const file of EXPECTED_OUTPUTS) {
    expect((await sharp(readFileSync(join(destination, file))).metadata()).channels).toBe(4)
  }
}

/** Opens the before/after view of the first file, moves the divider, zooms; `onOpen` sees it loaded. */
export async function useBeforeAfter(page: Page, onOpen: () => Promise<unknown>): Promise<void> {
  await page.getByTestId('open-viewer').first().click()
  const viewer = page.getByTestId('viewer')
  await viewer.waitFor()
  await page.waitForFunction(() => {
    const imgs: any[] = [...(globalThis as any).document.querySelectorAll('[data-testid=viewer] img')]
    return imgs.length === 2 && imgs.every((i) => i.complete && i.naturalWidth > 0)
  })
  await page.getByTestId('viewer-slider').fill('35')
  expect(await page.getByTestId('viewer-device').textContent()).toBe('Model and device: medium · cpu')
  await onOpen()
  // Opened fitted, with its true percentage; zoomed in, a percentage alone.
  expect(await page.getByTestId('viewer-zoom').textContent()).toMatch(/^Fit \([\d.]+ %\)$/)
  await page.getByRole('button', { name: 'Zoom in' }).click()
  await expect.poll(() => page.getByTestId('viewer-zoom').textContent()).toMatch(/^[\d.]+ %$/)
  await page.keyboard.press('Escape')
  await expect.poll(() => viewer.count()).toBe(0)
  // Esc gives focus back to the button that opened the view, not to the page.
  await expect.poll(() => page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('data-testid'))).toBe('open-viewer')
}

/** Creates preset `name` (a display name; its short name is made from it) in the form, waits for its live preview, saves it. */
export async function createPreset(page: Page, name: string, onPreview: () => Promise<unknown>): Promise<void> {
  await page.getByTestId('nav-presets').click()
  await page.getByTestId('new-preset').click()
  await page.getByTestId('preset-name').fill(name)
  await page.getByTestId('param-background').selectOption('color')
  await page.getByTestId('param-color').fill('#FFFFFF')
  await page.getByTestId('param-crop').selectOption('subject')
  await page.getByTestId('param-margin').fill('5')
  await expect.poll(() => page.getByTestId('preset-params').textContent()).toBe('background=#FFFFFF;crop=subject;margin=5%')
  await page.getByTestId('preset-preview').waitFor({ timeout: 120_000 })
  await page.waitForFunction(() => {
    const img = (globalThis as any).document.querySelector('[data-testid=preset-preview]')
    return img?.complete && img.naturalWidth > 0
  })
  await onPreview()
  await page.getByTestId('save-preset').click()
  await expect.poll(() => page.getByTestId('preset-list').textContent()).toContain(name)
  await page.getByTestId('nav-batches').click()
  await expect.poll(() => page.getByTestId('batch-preset').locator('option').allTextContents()).toContain(name)
}

/** Creates key `name` (secret shown once), then revokes it. `check` may try the secret in between and after. */
export async function createAndRevokeKey(
  page: Page,
  name: string,
  check: (secret: string, phase: 'created' | 'revoked') => Promise<unknown>
): Promise<void> {
  await page.getByTestId('nav-api').click()
  await page.getByTestId('key-name').fill(name)
  await page.getByTestId('create-key').click()
  const secret = (await page.getByTestId('created-key-secret').textContent()) ?? ''
  expect(secret).toMatch(/^cdk_/)
  await check(secret, 'created')
  const row = page.locator('[data-testid=key-row]', { hasText: name })
  page.once('dialog', (d) => void d.accept())
  await row.getByTestId('revoke-key').click()
  await expect.poll(() => row.getAttribute('data-state')).toBe('revoked')
  await check(secret, 'revoked')
}
