import { describe, expect, it } from 'vitest'
import { clampView, fitView, panBy, percentOf, scaleLimits, wheelFactor, zoomAt, zoomLabel, type View } from './zoom'

const viewport = { width: 1000, height: 800 }
const photo = { width: 4000, height: 2000 }
/** Where the picture's point (px, py) is on the screen in view `v`. */
const onScreen = (v: View, px: number, py: number): [number, number] => [v.x + px * v.scale, v.y + py * v.scale]

describe('zoom and pan (before/after and the touch-up editor)', () => {
  it('fits the picture whole and centred, and names it with its true percentage', () => {
    const v = fitView(viewport, photo)
    expect(v).toEqual({ scale: 0.25, x: 0, y: 150 })
    expect(zoomLabel(v.scale, true, 1)).toBe('Fit (25 %)')
    // 100 % is one picture pixel per device pixel: a CSS scale of 0.5 on a 2× display.
    expect(percentOf(0.5, 2)).toBe(100)
    expect(zoomLabel(1, false, 1)).toBe('100 %')
    expect(zoomLabel(1, false, 2)).toBe('200 %')
    expect(zoomLabel(0.0125, true, 1)).toBe('Fit (1.3 %)')
  })

  it('zooms at the cursor: the point under it stays under it', () => {
    const fit = fitView(viewport, photo)
    const cursor = { x: 700, y: 300 }
    const px = (cursor.x - fit.x) / fit.scale
    const py = (cursor.y - fit.y) / fit.scale
    let v = fit
    for (const scale of [0.375, 0.75, 3]) {
      v = zoomAt(v, scale, cursor, viewport, photo, 1)
      expect(v.scale).toBe(scale)
      const [sx, sy] = onScreen(v, px, py)
      expect(sx).toBeCloseTo(cursor.x, 9)
      expect(sy).toBeCloseTo(cursor.y, 9)
    }
    // Not at the top-left corner: the picture's origin left the viewport.
    expect(v.x).toBeLessThan(0)
    expect(v.y).toBeLessThan(0)
  })

  it('keeps the scale between the fitted view (or 100 %) and 1600 %', () => {
    const fit = fitView(viewport, photo)
    expect(scaleLimits(viewport, photo, 1)).toEqual({ min: 0.25, max: 16 })
    expect(zoomAt(fit, 100, { x: 500, y: 400 }, viewport, photo, 1).scale).toBe(16)
    expect(zoomAt(fit, 0.01, { x: 500, y: 400 }, viewport, photo, 1).scale).toBe(0.25)
    // A picture smaller than the viewport may be seen at 100 %, below its fitted scale.
    const small = { width: 100, height: 50 }
    expect(scaleLimits(viewport, small, 1)).toEqual({ min: 1, max: 16 })
  })

  it('pans by the pointer, never losing the picture', () => {
    const v = zoomAt(fitView(viewport, photo), 1, { x: 500, y: 400 }, viewport, photo, 1)
    const moved = panBy(v, 120, -80, viewport, photo)
    expect(moved.x - v.x).toBe(120)
    expect(moved.y - v.y).toBe(-80)
    // Far past the edge: at least half the viewport still shows the picture.
    const far = panBy(v, 1e6, 1e6, viewport, photo)
    expect(far.x).toBe(500)
    expect(far.y).toBe(400)
    const small = clampView({ scale: 1, x: -90, y: 2000 }, viewport, { width: 100, height: 50 })
    expect(small).toEqual({ scale: 1, x: -50, y: 775 })
  })

  it('turns the wheel into a factor: forward zooms in, back zooms out, a notch about 1.16×', () => {
    expect(wheelFactor(-100)).toBeGreaterThan(1.15)
    expect(wheelFactor(-100)).toBeLessThan(1.18)
    expect(wheelFactor(100)).toBeCloseTo(1 / wheelFactor(-100), 12)
    expect(wheelFactor(0)).toBe(1)
  })
})
