import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { resizeGrey, resizeRgb, resizeToPlanes, triangleTaps } from './resample'

describe('triangleTaps', () => {
  it('weights sum to 1 and stay inside the source, for any sizes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 300 }), (src, dst) => {
        const t = triangleTaps(src, dst)
        for (let i = 0; i < dst; i++) {
          let sum = 0
          for (let k = 0; k < t.taps; k++) {
            const w = t.weights[i * t.taps + k]!
            expect(w).toBeGreaterThanOrEqual(0)
            if (w > 0) expect(t.start[i]! + k).toBeLessThan(src)
            sum += w
          }
          expect(sum).toBeCloseTo(1, 5)
        }
      })
    )
  })
})

describe('resizeGrey', () => {
  it('keeps a constant image constant at any size', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 90 }),
        fc.integer({ min: 1, max: 90 }),
        fc.integer({ min: 0, max: 255 }),
        (w, h, dw, dh, v) => {
          const out = resizeGrey(new Uint8Array(w * h).fill(v), w, h, dw, dh)
          expect(out.length).toBe(dw * dh)
          for (const x of out) expect(x).toBe(v)
        }
      )
    )
  })

  it('same size: a copy', () => {
    const src = Uint8Array.from([1, 2, 3, 4, 5, 6])
    const out = resizeGrey(src, 3, 2, 3, 2)
    expect([...out]).toEqual([1, 2, 3, 4, 5, 6])
    expect(out.buffer).not.toBe(src.buffer)
  })

  it('doubling interpolates linearly between neighbours; halving takes a triangle-weighted mean', () => {
    expect([...resizeGrey(Uint8Array.from([0, 200]), 2, 1, 4, 1)]).toEqual([0, 50, 150, 200])
    // Output 0 (centre 1.0, half-width 2): sources 0, 1, 2 weighted 0.75, 0.75, 0.25.
    expect([...resizeGrey(Uint8Array.from([0, 100, 200, 200]), 4, 1, 2, 1)]).toEqual([71, 186])
  })

  it('with a part, makes those pixels exactly as the whole resize does and leaves the rest 0', () => {
    const src = Uint8Array.from({ length: 97 * 61 }, (_, i) => (i * 37 + (i >> 5) * 11) % 256)
    for (const [dw, dh] of [
      [128, 80],
      [40, 33],
      [97, 61]
    ] as const) {
      const whole = resizeGrey(src, 97, 61, dw, dh)
      const part = { x: 5, y: 3, width: Math.floor(dw / 3), height: Math.floor(dh / 2) }
      const some = resizeGrey(src, 97, 61, dw, dh, undefined, undefined, part)
      for (let y = 0; y < dh; y++)
        for (let x = 0; x < dw; x++) {
          const inside = x >= part.x && x < part.x + part.width && y >= part.y && y < part.y + part.height
          expect(some[y * dw + x], `${dw}x${dh} at ${x},${y}`).toBe(inside ? whole[y * dw + x] : 0)
        }
    }
  })

  it('refuses a source shorter than its size', () => {
    expect(() => resizeGrey(new Uint8Array(3), 2, 2, 1, 1)).toThrow('resizeGrey: source does not match its size')
  })
})

describe('resizeToPlanes and resizeRgb', () => {
  it('planes carry each channel, scaled and offset', () => {
    const rgba = Uint8Array.from([10, 20, 30, 255, 10, 20, 30, 0])
    const out = new Float32Array(3 * 4)
    resizeToPlanes(rgba, 2, 1, 4, 2, 2, out, 1 / 256, -0.5)
    expect([...out].map((v) => +v.toFixed(5))).toEqual([
      ...Array(4).fill(+(10 / 256 - 0.5).toFixed(5)),
      ...Array(4).fill(+(20 / 256 - 0.5).toFixed(5)),
      ...Array(4).fill(+(30 / 256 - 0.5).toFixed(5))
    ])
  })

  it('resizeRgb drops alpha and keeps flat colours exact', () => {
    const rgba = new Uint8Array(5 * 3 * 4)
    for (let i = 0; i < 15; i++) rgba.set([200, 100, 50, i * 10], i * 4)
    const out = resizeRgb(rgba, 5, 3, 4, 7, 2)
    expect(out.length).toBe(7 * 2 * 3)
    for (let i = 0; i < 14; i++) expect([...out.subarray(i * 3, i * 3 + 3)]).toEqual([200, 100, 50])
  })

  it('refuses bad sizes', () => {
    expect(() => resizeToPlanes(new Uint8Array(8), 2, 2, 3, 1, 1, new Float32Array(3), 1, 0)).toThrow(
      'resizeToPlanes: source does not match its size'
    )
    expect(() => resizeToPlanes(new Uint8Array(12), 2, 2, 3, 2, 2, new Float32Array(3), 1, 0)).toThrow('resizeToPlanes: output too short')
    expect(() => resizeRgb(new Uint8Array(8), 2, 2, 2, 1, 1)).toThrow('resizeRgb: source does not match its size')
  })
})

describe('explicit scale', () => {
  it('maps output i to source centre (i + 0.5) · scale (grids with a partial last cell)', () => {
    // 5 source pixels onto cells of 2 (centres 1, 3, 5): the last cell is half outside, and
    // weighs only the source pixels it covers.
    expect([...resizeGrey(Uint8Array.from([0, 0, 100, 100, 200]), 5, 1, 3, 1, 2, 1)]).toEqual([14, 100, 175])
  })
})
