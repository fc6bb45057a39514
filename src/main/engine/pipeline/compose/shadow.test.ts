import { describe, expect, it } from 'vitest'
import { composeRect, paramsOf } from '../../../../../test/fixtures/compose-fixtures'
import { alphaBounds } from './placement'
import { cutSides, NO_CUT } from './placement'
import { makeShadow, shadowSkipReason } from './shadow'

/** RGBA canvas with an opaque subject in `rect` (what the compose step hands to makeShadow). */
function placedSubject(width: number, height: number, rect: { x: number; y: number; width: number; height: number }): Buffer {
  const data = Buffer.alloc(width * height * 4)
  for (let y = rect.y; y < rect.y + rect.height; y++)
    for (let x = rect.x; x < rect.x + rect.width; x++) data.set([200, 30, 40, 255], (y * width + x) * 4)
  return data
}

/** The shadow's alpha at a canvas point (0 outside the layer). */
function shadowAt(layer: { data: Buffer; left: number; top: number; width: number; height: number }, x: number, y: number): number {
  const lx = x - layer.left
  const ly = y - layer.top
  if (lx < 0 || ly < 0 || lx >= layer.width || ly >= layer.height) return 0
  return layer.data[(ly * layer.width + lx) * 4 + 3]!
}

describe('makeShadow', () => {
  it('lays a soft ellipse under the base: darkest under the centre, fading out, nothing high above the base', async () => {
    const rect = { x: 80, y: 40, width: 80, height: 100 } // base at y = 140
    const r = await makeShadow(placedSubject(240, 200, rect), { width: 240, height: 200 })
    expect(r.ok).toBe(true)
    if (!r.ok) return
    const layer = r.layer
    // Black pixels; the layer is a small rectangle around the base, not the whole canvas.
    for (let i = 0; i < layer.data.length; i += 4) expect(layer.data[i]! + layer.data[i + 1]! + layer.data[i + 2]!).toBe(0)
    expect(layer.width).toBeLessThan(240)
    expect(layer.height).toBeLessThan(60)
    const centre = shadowAt(layer, 120, 141)
    expect(centre).toBeGreaterThan(60) // opaque enough to see (≥ 0.32 × 255 before the blur)
    expect(centre).toBeLessThanOrEqual(Math.round(0.6 * 255))
    expect(shadowAt(layer, 120, 141)).toBeGreaterThan(shadowAt(layer, 120, 150))
    expect(shadowAt(layer, 120, 141)).toBeGreaterThan(shadowAt(layer, 75, 141))
    // Sized from the footprint: reaches about the subject's width, not far beyond.
    expect(shadowAt(layer, 120 - 40, 141)).toBeGreaterThan(0)
    expect(shadowAt(layer, 120 - 70, 141)).toBe(0)
    expect(shadowAt(layer, 120, 120)).toBe(0)
    expect(shadowAt(layer, 120, 175)).toBe(0)
  })

  it('a broad base casts a wider, darker shadow than a narrow one', async () => {
    const canvas = { width: 300, height: 200 }
    const broad = await makeShadow(placedSubject(300, 200, { x: 100, y: 40, width: 100, height: 100 }), canvas)
    // A cone standing on its tip: the same box, a narrow base.
    const cone = Buffer.alloc(300 * 200 * 4)
    for (let y = 40; y < 140; y++) {
      const half = Math.max(1, Math.round(((140 - y) / 100) * 50))
      for (let x = 150 - half; x < 150 + half; x++) cone[(y * 300 + x) * 4 + 3] = 255
    }
    const narrow = await makeShadow(cone, canvas)
    if (!broad.ok || !narrow.ok) throw new Error('no shadow')
    const width = (l: typeof broad.layer) => alphaBounds(l.data, l.width, l.height, { stride: 4, offset: 3, threshold: 8 })!.width
    expect(width(broad.layer)).toBeGreaterThan(width(narrow.layer))
    expect(shadowAt(broad.layer, 150, 141)).toBeGreaterThan(shadowAt(narrow.layer, 150, 141))
  })

  it('keeps only the part on the canvas when the base stands on the bottom edge', async () => {
    const r = await makeShadow(placedSubject(100, 100, { x: 30, y: 20, width: 40, height: 80 }), { width: 100, height: 100 })
    if (!r.ok) throw new Error(r.reason)
    expect(r.layer.top + r.layer.height).toBeLessThanOrEqual(100)
    expect(shadowAt(r.layer, 50, 99)).toBeGreaterThan(0)
  })

  it('makes none for an empty canvas', async () => {
    expect(await makeShadow(Buffer.alloc(10 * 10 * 4), { width: 10, height: 10 })).toEqual({
      ok: false,
      reason: expect.stringMatching(/no subject/)
    })
  })
})

describe('shadowSkipReason', () => {
  const mask = (rows: Array<[number, number]>) => {
    const m = Buffer.alloc(20 * 20)
    for (const [y0, y1] of rows) for (let y = y0; y < y1; y++) m.fill(255, y * 20 + 5, y * 20 + 15)
    return m
  }
  const cut = (m: Buffer) => cutSides(m, 20, 20)
  it('empty → skipped; hanging from the top edge → skipped; cut by the bottom edge → skipped; standing → made', () => {
    expect(shadowSkipReason(Buffer.alloc(400), 20, 20, null, NO_CUT)).toMatch(/no subject/)
    const hanging = mask([[0, 12]])
    expect(shadowSkipReason(hanging, 20, 20, { x: 5, y: 0, width: 10, height: 12 }, cut(hanging))).toMatch(/hangs from the top edge/)
    const standing = mask([[4, 16]])
    expect(shadowSkipReason(standing, 20, 20, { x: 5, y: 4, width: 10, height: 12 }, cut(standing))).toBeNull()
    // No shadow under a cut: a subject the bottom edge cuts stands on the canvas's edge.
    const full = mask([[0, 20]])
    expect(shadowSkipReason(full, 20, 20, { x: 5, y: 0, width: 10, height: 20 }, cut(full))).toMatch(/bottom edge cuts the subject/)
    const torso = mask([[8, 20]])
    expect(shadowSkipReason(torso, 20, 20, { x: 5, y: 8, width: 10, height: 12 }, cut(torso))).toMatch(/bottom edge cuts the subject/)
  })
})

describe('shadowTop variation', () => {
  it('is compose plus the shadow: darker than the background just under the subject, the same elsewhere', async () => {
    const rect = { x: 40, y: 20, width: 40, height: 50 }
    const result = await composeRect(120, 100, rect, paramsOf('variations=compose,shadowTop;background=#FFFFFF'))
    expect(result.ignored).toEqual([])
    const [compose, shadow] = result.variations.map((v) => v.image)
    const at = (img: typeof compose, x: number, y: number) => img!.data[(y * 120 + x) * 4]!
    expect(at(shadow, 60, 71)).toBeLessThan(230)
    expect(at(compose, 60, 71)).toBe(255)
    expect(at(shadow, 5, 5)).toBe(255)
    expect(at(shadow, 60, 40)).toBe(at(compose, 60, 40)) // the subject covers the shadow
  })

  it('is skipped with a warning and listed in ignored when the subject is empty or hangs from the top', async () => {
    for (const rect of [null, { x: 40, y: 0, width: 40, height: 50 }]) {
      const result = await composeRect(120, 100, rect, paramsOf('background=#FFFFFF'))
      expect(result.variations.map((v) => v.variation)).toEqual(['clipping', 'background', 'compose'])
      expect(result.ignored).toEqual(['shadowTop'])
      expect(result.warnings.shadowTop).toHaveLength(1)
      expect(result.warnings.shadowTop![0]).toMatch(
        rect ? /^not made: the subject hangs from the top edge/ : /^not made: no subject was found/
      )
    }
  })
})
