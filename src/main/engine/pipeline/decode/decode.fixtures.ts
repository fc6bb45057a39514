/**
 * What the decodeImage tests share (`decode-*.test.ts` beside it): a pixel limit that never
 * binds, small images written in code, and the checks they read pixels and refusals with.
 */
import sharp from 'sharp'
import { expect } from 'vitest'
import { solidRgba } from '../../../../../test/fixtures/test-fixtures'

/** The pixel limit of tests that are not about the limit: far above any image they decode. */
export const MAX = 100_000_000

/** A 4×2 RGBA image: opaque red, green, blue, white on top; half-transparent grey, clear below. */
export function palette(): Buffer {
  return Buffer.from([
    255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255, 128, 128, 128, 128, 128, 128, 128, 128, 0, 0, 0, 0, 0, 0, 0, 0
  ])
}
/** A sharp pipeline over raw pixels, 8 bits a channel. */
export const raw = (data: Buffer, width: number, height: number, channels: 1 | 2 | 3 | 4 = 4) =>
  sharp(data, { raw: { width, height, channels } })

/** The RGBA values of one pixel of a decoded image. */
export function pixel(img: { data: Buffer; width: number }, x: number, y: number): number[] {
  const i = (y * img.width + x) * 4
  return [...img.data.subarray(i, i + 4)]
}

/** Each channel within `tolerance` of the expected value (lossy codecs, colour conversions). */
export function expectClose(actual: number[], expected: number[], tolerance: number): void {
  expect(actual).toHaveLength(expected.length)
  for (const [i, v] of actual.entries())
    expect(Math.abs(v - expected[i]!), `channel ${i}: ${v} vs ${expected[i]}`).toBeLessThanOrEqual(tolerance)
}

/** A job's failure, read the one way the engine's tests read it. */
export { failure } from '../../errors.fixtures'

/** Stored pure sRGB red, converted into Display P3 and tagged with the P3 profile. */
export async function p3Red(): Promise<Buffer> {
  return raw(solidRgba(4, 4, [255, 0, 0, 255]), 4, 4)
    .withIccProfile('p3')
    .png()
    .toBuffer()
}
