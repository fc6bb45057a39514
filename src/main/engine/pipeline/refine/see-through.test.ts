import { describe, expect, it } from 'vitest'
import { solidAnalysis, solidMask } from './solid'

const W = 240
const H = 240
/** Mask value of the broad half-transparent region: 40 %. */
const HALF = 102

/** A figure the model is sure of, and a broad region at 40 % hanging from its lower half and wrapping round it. */
const figure = (x: number, y: number): boolean => x >= 90 && x < 150 && y >= 20 && y < 180
const region = (x: number, y: number): boolean => !figure(x, y) && x >= 50 && x < 190 && y >= 100 && y < 220

function maskPlane(): { data: Buffer; width: number; height: number } {
  const data = Buffer.alloc(W * H)
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) data[y * W + x] = figure(x, y) ? 255 : region(x, y) ? HALF : 0
  return { data, width: W, height: H }
}

/** A pocket 2 px wide inside the figure (a gap between an arm and the body): too narrow for the photo to be read there. */
const pocket = (x: number, y: number): boolean => x >= 110 && x < 112 && y >= 120 && y < 170

/** The mask with the pocket at 40 % as well: the veil seen between the limbs. */
function withPocket(): { data: Buffer; width: number; height: number } {
  const plane = maskPlane()
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) if (pocket(x, y)) plane.data[y * W + x] = HALF
  return plane
}

/** A textured background (seeded noise, each pixel its own grey level), the figure flat red, and `inRegion` over the region. */
function photo(inRegion: (bg: number) => [number, number, number]): { data: Buffer; width: number; height: number } {
  let s = 12345
  const rand = (): number => {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    return (s >>> 0) / 4294967296
  }
  const data = Buffer.alloc(W * H * 4)
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const bg = 40 + Math.round(rand() * 140)
      const rgb = figure(x, y) && !pocket(x, y) ? [200, 60, 40] : region(x, y) || pocket(x, y) ? inRegion(bg) : [bg, bg, bg]
      data.set([...rgb, 255], (y * W + x) * 4)
    }
  return { data, width: W, height: H }
}

/** The deep part of the region (away from its outline and the figure). */
function deepRegion(x: number, y: number): boolean {
  return x >= 58 && x < 82 && y >= 108 && y < 212
}

describe('solidMask with the photo', () => {
  it('keeps a see-through veil partial where the background’s texture shows through it', () => {
    const mask = maskPlane()
    expect(solidAnalysis(mask.data, W, H).triggered).toBe(true)
    // A white veil at 40 % over the textured background: 0.4 · 245 + 0.6 · B.
    const veiled = photo((bg) => {
      const v = Math.round(0.4 * 245 + 0.6 * bg)
      return [v, v, v]
    })
    const result = solidMask(mask, veiled)
    // The veil is the only broad region and the photo shows it see-through: nothing is left to
    // decide, so the model's mask comes back as it was, the figure's edges included.
    expect(result).toBe(mask)
    const out = result.data
    let checked = 0
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++)
        if (deepRegion(x, y)) {
          checked++
          expect(out[y * W + x]).toBe(HALF)
        }
    expect(checked).toBeGreaterThan(2000)
    // The figure stays opaque.
    expect(out[100 * W + 120]).toBe(255)
    // From the mask alone (a photo where nothing shows through) the same veil is made opaque.
    const flat = { data: Buffer.alloc(W * H * 4, 128), width: W, height: H }
    expect(solidMask(mask, flat).data[150 * W + 70]).toBe(255)
  })

  it('makes a doubted solid region opaque where the photo shows a flat colour unlike the background', () => {
    const mask = maskPlane()
    const out = solidMask(
      mask,
      photo(() => [60, 90, 200])
    ).data
    let checked = 0
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++)
        if (deepRegion(x, y)) {
          checked++
          expect(out[y * W + x]).toBe(255)
        }
    expect(checked).toBeGreaterThan(2000)
  })

  it('keeps a pocket too narrow to read partial when the veil it belongs with reads see-through, and makes it opaque beside a doubted solid part', () => {
    const veil = (bg: number): [number, number, number] => {
      const v = Math.round(0.4 * 245 + 0.6 * bg)
      return [v, v, v]
    }
    const mask = withPocket()
    // The veil reads see-through, so the pocket (no cell away from its outline) goes with it: nothing changes.
    expect(solidMask(mask, photo(veil))).toBe(mask)
    // Where the readable region is a doubted solid part, the pocket is the subject's too.
    const out = solidMask(
      mask,
      photo(() => [60, 90, 200])
    ).data
    let checked = 0
    for (let y = 125; y < 165; y++)
      for (let x = 110; x < 112; x++) {
        checked++
        expect(out[y * W + x]).toBe(255)
      }
    expect(checked).toBe(80)
  })
})
