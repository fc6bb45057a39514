/**
 * Zoom and pan of a picture in a viewport, shared by the before/after view and the touch-up
 * editor (`components/useZoomPan.ts`). A view is the picture's scale (CSS pixels per picture
 * pixel) and where its top-left corner sits in the viewport. Zooming keeps the picture's point
 * under the cursor (or the viewport's centre) where it is; panning moves the picture with the
 * pointer. Percentages are true: 100 % is one picture pixel per device pixel of the screen, so
 * a CSS scale of 1 on a 2× display is 200 %.
 */

export interface Size {
  width: number
  height: number
}

export interface View {
  /** CSS pixels per picture pixel. */
  scale: number
  /** The picture's top-left corner in the viewport, in CSS pixels. */
  x: number
  y: number
}

/** The most a picture is enlarged: 16 screen pixels per picture pixel. */
export const MAX_PERCENT = 1600
/** One step of the + and − buttons and keys. */
export const ZOOM_STEP = 1.5

/** The scale at which the picture fits the viewport, whole. */
export function fitScale(viewport: Size, content: Size): number {
  return Math.min(viewport.width / content.width, viewport.height / content.height)
}

/** The picture fitted and centred. */
export function fitView(viewport: Size, content: Size): View {
  const scale = fitScale(viewport, content)
  return { scale, x: (viewport.width - content.width * scale) / 2, y: (viewport.height - content.height * scale) / 2 }
}

/** The scale of 100 % (one picture pixel per device pixel) for a display of `dpr` device pixels per CSS pixel. */
export function actualScale(dpr: number): number {
  return 1 / (dpr > 0 ? dpr : 1)
}

/** The scale as the percentage shown to the user. */
export function percentOf(scale: number, dpr: number): number {
  return (scale / actualScale(dpr)) * 100
}

/** The scales a view may take: down to the fitted view or 100 %, whichever is smaller, up to `MAX_PERCENT` or the fitted view. */
export function scaleLimits(viewport: Size, content: Size, dpr: number): { min: number; max: number } {
  const fit = fitScale(viewport, content)
  const actual = actualScale(dpr)
  return { min: Math.min(fit, actual), max: Math.max(fit, (actual * MAX_PERCENT) / 100) }
}

/**
 * The view moved back so that the picture still covers at least half of the viewport along
 * each axis (or half of itself, when it is smaller than the viewport): a pan never loses it.
 */
export function clampView(v: View, viewport: Size, content: Size): View {
  const axis = (pos: number, extent: number, room: number): number => {
    const keep = Math.min(extent, room) / 2
    return Math.min(room - keep, Math.max(keep - extent, pos))
  }
  return { scale: v.scale, x: axis(v.x, content.width * v.scale, viewport.width), y: axis(v.y, content.height * v.scale, viewport.height) }
}

/** The view at `scale` (kept within the limits) with the picture's point under `at` (viewport pixels) still under it. */
export function zoomAt(v: View, scale: number, at: { x: number; y: number }, viewport: Size, content: Size, dpr: number): View {
  const { min, max } = scaleLimits(viewport, content, dpr)
  const s = Math.min(max, Math.max(min, scale))
  const px = (at.x - v.x) / v.scale
  const py = (at.y - v.y) / v.scale
  return clampView({ scale: s, x: at.x - px * s, y: at.y - py * s }, viewport, content)
}

/** The view moved by (dx, dy) viewport pixels. */
export function panBy(v: View, dx: number, dy: number, viewport: Size, content: Size): View {
  return clampView({ scale: v.scale, x: v.x + dx, y: v.y + dy }, viewport, content)
}

/** The zoom factor of a wheel turn (`deltaY` in pixels; negative zooms in): about 1.16× a notch of 100. */
export function wheelFactor(deltaY: number): number {
  return Math.exp(-Math.max(-500, Math.min(500, deltaY)) * 0.0015)
}

/** The label of a view: "Fit (42 %)" while fitted, else its percentage. */
export function zoomLabel(scale: number, fitted: boolean, dpr: number): string {
  const pct = percentOf(scale, dpr)
  const shown = pct < 10 ? Math.round(pct * 10) / 10 : Math.round(pct)
  return fitted ? `Fit (${shown} %)` : `${shown} %`
}
