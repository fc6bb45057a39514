import { describe, expect, it, vi } from 'vitest'
import { computeAlpha } from './segment-and-refine'
import type { MaskSource } from '../segment/mask/types'
import type { DecodedImage } from './decode/decode'
import { MODEL_SIZE } from '../segment/mask/mask'

const W = 320
const H = 240

/**
 * A solid subject on a busy background (an opaque orange rectangle, true alpha 0/1), and a
 * stand-in model that is sure of its top third only and says 40 % below, as the model does
 * with a white dress or a shelf of pots.
 */
function doubtedSubject(): { image: DecodedImage; source: MaskSource; inside: (x: number, y: number) => boolean } {
  const inside = (x: number, y: number): boolean => x >= 100 && x < 220 && y >= 30 && y < 210
  const data = Buffer.alloc(W * H * 4)
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 4
      const rgb = inside(x, y) ? [230, 120, 40] : [(x * 31 + y * 7) % 256, (x * 5 + y * 23) % 200, 40 + ((x ^ y) % 120)]
      data.set([...rgb, 255], i)
    }
  const mask = Buffer.alloc(MODEL_SIZE * MODEL_SIZE)
  for (let y = 0; y < MODEL_SIZE; y++)
    for (let x = 0; x < MODEL_SIZE; x++) {
      const px = (x + 0.5) * (W / MODEL_SIZE)
      const py = (y + 0.5) * (H / MODEL_SIZE)
      if (inside(px, py)) mask[y * MODEL_SIZE + x] = py < 90 ? 255 : 102
    }
  const source = {
    variant: 'medium' as const,
    segment: vi.fn(async () => Buffer.alloc(W * H)),
    segmentAtModelSize: vi.fn(async () => ({ mask: Buffer.from(mask), inferenceMs: 1 }))
  }
  return { image: { data, width: W, height: H, channels: 4, hasAlpha: false, warnings: [] }, source, inside }
}

describe('computeAlpha: solid subjects', () => {
  it('makes a solid subject the model left half transparent opaque with the default refine, with its own colours', async () => {
    const { image, source, inside } = doubtedSubject()
    const out = await computeAlpha(image, image.data, { segmenter: source }, { alpha: 'auto', refine: 'edges' })
    let interior = 0
    let opaque = 0
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const i = y * W + x
        if (x >= 106 && x < 214 && y >= 36 && y < 204) {
          interior++
          if (out.alpha[i] === 255) opaque++
          expect(Math.abs(out.foreground[i * 4]! - 230)).toBeLessThanOrEqual(2)
        }
        if (!inside(x, y) && (x < 94 || x >= 226 || y < 24 || y >= 216)) expect(out.alpha[i]).toBe(0)
      }
    expect(opaque / interior).toBeGreaterThan(0.99)
  })

  it('leaves the model’s mask as it is with refine=none', async () => {
    const { image, source } = doubtedSubject()
    const out = await computeAlpha(image, image.data, { segmenter: source }, { alpha: 'auto', refine: 'none' })
    // The lower part of the subject keeps the model's 40 %.
    expect(out.alpha[150 * W + 160]).toBe(102)
  })
})
