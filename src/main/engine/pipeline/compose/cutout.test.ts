import { describe, expect, it } from 'vitest'
import { makeCutout } from './cutout'

describe('makeCutout', () => {
  it('uses the mask as alpha and keeps the colours', () => {
    const image = { data: Buffer.from([10, 20, 30, 255, 40, 50, 60, 255, 70, 80, 90, 255]), width: 3, height: 1, channels: 4 as const }
    const out = makeCutout(image, Buffer.from([0, 128, 255]))
    expect([...out]).toEqual([10, 20, 30, 0, 40, 50, 60, 128, 70, 80, 90, 255])
    // The input is not modified.
    expect(image.data[3]).toBe(255)
  })

  it('multiplies with alpha the input already had', () => {
    const image = { data: Buffer.from([1, 2, 3, 0, 4, 5, 6, 128, 7, 8, 9, 128]), width: 3, height: 1, channels: 4 as const }
    const out = makeCutout(image, Buffer.from([255, 255, 128]))
    expect([out[3], out[7], out[11]]).toEqual([0, 128, 64])
  })

  it('refuses a mask of the wrong size (e.g. 3 channels)', () => {
    const image = { data: Buffer.alloc(2 * 2 * 4), width: 2, height: 2, channels: 4 as const }
    expect(() => makeCutout(image, Buffer.alloc(12))).toThrow(/expected 4/)
  })
})
