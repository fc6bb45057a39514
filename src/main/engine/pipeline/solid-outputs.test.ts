/**
 * The solid-subject step as a user gets it: a photo through the whole pipeline with the defaults
 * of `clipping` (refine=edges, look=auto), the written PNG decoded and its alpha read.
 *
 * The model is a stand-in here, and must be: the real model cannot be made, from a photo drawn in
 * code, to give a solid subject a half-transparent inside (it does on corpus photos, which the
 * corpus check covers, docs/pipeline.md "Solid subjects"). The stand-in answers from the colours
 * it is shown, so every view a second look takes (tiles, zooms, mirrors) gets the same answer.
 */
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { CLIPPING_DEFAULTS } from '../../../shared/params-types'
import { MODEL_SIZE, type SegmentInput } from '../segment/mask/mask'
import type { MaskSource } from '../segment/mask/types'
import { processJob } from './index'

const W = 480
const H = 360

/** The colours the stand-in knows, and what it answers for each (0–255). Anything else: 0. */
const SURE = [230, 120, 40] // a subject it is sure of
const DOUBTED = [200, 100, 40] // the same subject where it doubts it (a white dress, a shelf of pots): 40 %
/** A veil's tint: a 40 % veil of [245, 245, 255] over grey moves blue 4 above red. */
const VEIL_TINT = 4

function answer(r: number, g: number, b: number): number {
  if (r === SURE[0] && g === SURE[1] && b === SURE[2]) return 255
  if (r === DOUBTED[0] && g === DOUBTED[1] && b === DOUBTED[2]) return 102
  if (b - r === VEIL_TINT && r === g) return 102
  return 0
}

/** A stand-in model: the colour code above, at the model's size, for whatever view it is shown. */
function colourModel(): MaskSource {
  const atModelSize = async (image: SegmentInput) => {
    const mask = Buffer.alloc(MODEL_SIZE * MODEL_SIZE)
    for (let y = 0; y < MODEL_SIZE; y++)
      for (let x = 0; x < MODEL_SIZE; x++) {
        const sx = Math.min(image.width - 1, Math.floor(((x + 0.5) * image.width) / MODEL_SIZE))
        const sy = Math.min(image.height - 1, Math.floor(((y + 0.5) * image.height) / MODEL_SIZE))
        const i = (sy * image.width + sx) * image.channels
        mask[y * MODEL_SIZE + x] = answer(image.data[i]!, image.data[i + 1]!, image.data[i + 2]!)
      }
    return { mask, inferenceMs: 1 }
  }
  return {
    variant: 'medium',
    segmentAtModelSize: atModelSize,
    segment: async () => {
      throw new Error('the pipeline asks for the model-size mask')
    }
  }
}

/** Seeded grey noise, each pixel its own level: a busy background a veil lets show through. */
function greyNoise(): (x: number, y: number) => number {
  const levels = new Uint8Array(W * H)
  let s = 2024
  for (let i = 0; i < levels.length; i++) {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    levels[i] = 40 + ((s >>> 0) % 140)
  }
  return (x, y) => levels[y * W + x]!
}

/** A PNG of the photo `colour` draws. */
function photo(colour: (x: number, y: number) => number[]): Promise<Buffer> {
  const data = Buffer.alloc(W * H * 3)
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) data.set(colour(x, y), (y * W + x) * 3)
  return sharp(data, { raw: { width: W, height: H, channels: 3 } })
    .png()
    .toBuffer()
}

/** The clipping's alpha, as written. */
async function writtenAlpha(input: Buffer): Promise<Buffer> {
  const result = await processJob(input, { segmenter: colourModel() }, { format: 'png', maxPixels: 100_000_000, params: CLIPPING_DEFAULTS })
  const out = result.outputs.find((o) => o.variation === 'clipping')!
  const { data, info } = await sharp(out.bytes).raw().toBuffer({ resolveWithObject: true })
  expect([info.width, info.height, info.channels]).toEqual([W, H, 4])
  const alpha = Buffer.alloc(W * H)
  for (let i = 0; i < alpha.length; i++) alpha[i] = data[i * 4 + 3]!
  return alpha
}

/** A veil of [245, 245, 255] at 40 % over a grey level: tinted so the stand-in knows it. */
const veiled = (bg: number): number[] => {
  const v = Math.round(0.4 * 245 + 0.6 * bg)
  return [v, v, v + VEIL_TINT]
}

describe('solid subjects in the written cutout (default clipping)', () => {
  it('an opaque subject the model leaves half transparent below is written opaque', async () => {
    const noise = greyNoise()
    const subject = (x: number, y: number): boolean => x >= 140 && x < 340 && y >= 40 && y < 320
    const input = await photo((x, y) => (subject(x, y) ? (y < 130 ? SURE : DOUBTED) : [noise(x, y), noise(x, y), noise(x, y)]))
    const alpha = await writtenAlpha(input)
    let inside = 0
    let opaque = 0
    for (let y = 48; y < 312; y++)
      for (let x = 148; x < 332; x++) {
        inside++
        if (alpha[y * W + x]! >= 250) opaque++
      }
    expect(opaque / inside).toBeGreaterThan(0.99)
    for (const [x, y] of [
      [20, 20],
      [460, 340],
      [100, 200]
    ] as const)
      expect(alpha[y * W + x]).toBe(0)
  })

  it('a veil hanging from a figure, the background showing through it, is written half transparent', async () => {
    const noise = greyNoise()
    const figure = (x: number, y: number): boolean => x >= 200 && x < 280 && y >= 30 && y < 250
    const veil = (x: number, y: number): boolean => !figure(x, y) && x >= 120 && x < 360 && y >= 150 && y < 330
    const input = await photo((x, y) => {
      const bg = noise(x, y)
      return figure(x, y) ? SURE : veil(x, y) ? veiled(bg) : [bg, bg, bg]
    })
    const alpha = await writtenAlpha(input)
    // Deep in the veil (away from its hem and the figure): partial, neither pushed to 0 nor to opaque.
    let deep = 0
    let partial = 0
    for (let y = 170; y < 310; y++)
      for (let x = 135; x < 185; x++) {
        deep++
        const a = alpha[y * W + x]!
        if (a >= 51 && a <= 204) partial++
      }
    expect(partial / deep).toBeGreaterThan(0.95)
    expect(alpha[100 * W + 240]).toBe(255)
    expect(alpha[20 * W + 20]).toBe(0)
  })
})
