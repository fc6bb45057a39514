/**
 * Checks of a view that zooms and pans (the before/after view and the touch-up editor share
 * `useZoomPan`), made with the real mouse: what the user sees is where the picture's box is.
 */
import type { Locator, Page } from 'playwright-core'
import { expect } from 'vitest'

type Box = { x: number; y: number; width: number; height: number }
const boxOf = async (l: Locator): Promise<Box> => (await l.boundingBox())!

/**
 * A wheel turn over a point of the picture (at fractions fx, fy of its box) zooms in, and that
 * point of the picture is still under the cursor afterwards (within a pixel and a half).
 */
export async function expectWheelZoomAtCursor(page: Page, picture: Locator, fx = 0.7, fy = 0.4): Promise<void> {
  const before = await boxOf(picture)
  const at = { x: before.x + before.width * fx, y: before.y + before.height * fy }
  await page.mouse.move(at.x, at.y)
  await page.mouse.wheel(0, -300)
  await expect.poll(async () => (await boxOf(picture)).width, { timeout: 5000 }).toBeGreaterThan(before.width * 1.4)
  const after = await boxOf(picture)
  expect(Math.abs(after.x + after.width * fx - at.x)).toBeLessThan(1.5)
  expect(Math.abs(after.y + after.height * fy - at.y)).toBeLessThan(1.5)
  // The picture grew around the cursor, not from its top-left corner.
  expect(after.x).toBeLessThan(before.x - 10)
  expect(after.y).toBeLessThan(before.y - 10)
}

/** A drag from `from` by (dx, dy) moves the picture by as much. */
export async function expectDragPans(page: Page, picture: Locator, from: { x: number; y: number }, dx: number, dy: number): Promise<void> {
  const before = await boxOf(picture)
  await page.mouse.move(from.x, from.y)
  await page.mouse.down()
  for (let k = 1; k <= 5; k++) await page.mouse.move(from.x + (dx * k) / 5, from.y + (dy * k) / 5)
  await page.mouse.up()
  const after = await boxOf(picture)
  expect(Math.abs(after.x - before.x - dx)).toBeLessThan(1.5)
  expect(Math.abs(after.y - before.y - dy)).toBeLessThan(1.5)
  expect(after.width).toBeCloseTo(before.width, 3)
}

/** The percentage a zoom label says ("Fit (42 %)" or "150 %"). */
export function percentIn(label: string | null): number {
  const m = /([\d.]+) %/.exec(label ?? '')
  return m ? Number(m[1]) : NaN
}
