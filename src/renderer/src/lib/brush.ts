/**
 * Keep and Remove strokes of the touch-up editor, and the hint they make (docs/touch-up.md
 * "Hints"): a grey picture where white is keep, black is remove and mid grey leaves the pixel
 * to the model. Strokes are kept in the input's own pixels, so the same list paints the small
 * hint of a preview and the full-size one that Save sends, and undo is dropping the last one.
 * Look-again boxes (`LookEdit`) share the strokes' undo list.
 */
import { MIN_REGION_SIDE, type RegionBox } from '../../../shared/regions'

export type BrushMode = 'keep' | 'remove'

export interface Stroke {
  mode: BrushMode
  /** Diameter, in the input's pixels. */
  size: number
  /** 0 (soft edge) to 1 (hard): the share of the radius painted fully; the rest fades out. */
  hardness: number
  /** Points along the drag, in the input's pixels. */
  points: Array<[number, number]>
}

/** The hint's grey for pixels no stroke covers: "let the model decide". */
export const HINT_GREY = 128

/** 2D drawing as the editor uses it (a canvas's context, on screen or off). */
type Ctx = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D

/** Colours of a stroke on the hint, and tinted on the screen's overlay. */
const HINT_COLOUR: Record<BrushMode, [number, number, number]> = { keep: [255, 255, 255], remove: [0, 0, 0] }
export const OVERLAY_COLOUR: Record<BrushMode, [number, number, number]> = { keep: [40, 200, 90], remove: [230, 50, 50] }

/**
 * Paints `strokes` on `ctx`, whose pixels are the input's scaled by `scale`. A stroke is a
 * chain of discs; its soft edge is a radial fade from the colour to transparent: the hint's
 * stroke rim, which takes the alpha down (or up) in proportion (docs/touch-up.md "Hints").
 */
export function paintStrokes(
  ctx: Ctx,
  strokes: readonly Stroke[],
  scale: number,
  colours: Record<BrushMode, [number, number, number]> = HINT_COLOUR
): void {
  for (const stroke of strokes) {
    const [r, g, b] = colours[stroke.mode]
    const radius = Math.max(0.5, (stroke.size * scale) / 2)
    const hard = Math.min(1, Math.max(0, stroke.hardness))
    for (const [x, y] of spaced(stroke.points, Math.max(1, radius / 4) / scale)) {
      const cx = x * scale
      const cy = y * scale
      if (hard >= 1) {
        ctx.fillStyle = `rgb(${r},${g},${b})`
      } else {
        const grad = ctx.createRadialGradient(cx, cy, 0, cx, cy, radius)
        grad.addColorStop(0, `rgba(${r},${g},${b},1)`)
        grad.addColorStop(hard, `rgba(${r},${g},${b},1)`)
        grad.addColorStop(1, `rgba(${r},${g},${b},0)`)
        ctx.fillStyle = grad
      }
      ctx.beginPath()
      ctx.arc(cx, cy, radius, 0, Math.PI * 2)
      ctx.fill()
    }
  }
}

/** The drag's points with more between them, so that a fast drag still paints a solid line. */
export function spaced(points: ReadonlyArray<[number, number]>, step: number): Array<[number, number]> {
  const out: Array<[number, number]> = []
  for (let i = 0; i < points.length; i++) {
    const [x, y] = points[i]!
    if (i > 0) {
      const [px, py] = points[i - 1]!
      const n = Math.floor(Math.hypot(x - px, y - py) / step)
      for (let k = 1; k < n; k++) out.push([px + ((x - px) * k) / n, py + ((y - py) * k) / n])
    }
    out.push([x, y])
  }
  return out
}

/** A canvas off the screen (a worker-less OffscreenCanvas where there is one). */
function canvas(width: number, height: number): { ctx: Ctx; toPng(): Promise<Blob> } {
  if (typeof OffscreenCanvas !== 'undefined') {
    const c = new OffscreenCanvas(width, height)
    return { ctx: c.getContext('2d')!, toPng: () => c.convertToBlob({ type: 'image/png' }) }
  }
  const c = document.createElement('canvas')
  c.width = width
  c.height = height
  return {
    ctx: c.getContext('2d')!,
    toPng: () =>
      new Promise((resolve, reject) => c.toBlob((b) => (b ? resolve(b) : reject(new Error('the hint could not be encoded'))), 'image/png'))
  }
}

/** The hint of `strokes` as a PNG of `width` × `height` (the input's size scaled by `scale`), base64. */
export async function hintPng(strokes: readonly Stroke[], width: number, height: number, scale: number): Promise<string> {
  const { ctx, toPng } = canvas(width, height)
  ctx.fillStyle = `rgb(${HINT_GREY},${HINT_GREY},${HINT_GREY})`
  ctx.fillRect(0, 0, width, height)
  paintStrokes(ctx, strokes, scale)
  return base64(new Uint8Array(await (await toPng()).arrayBuffer()))
}

export function base64(bytes: Uint8Array): string {
  let text = ''
  const chunk = 0x8000
  for (let i = 0; i < bytes.length; i += chunk) text += String.fromCharCode(...bytes.subarray(i, i + chunk))
  return btoa(text)
}

/**
 * A look-again box (docs/touch-up.md "Look again"): the model runs again on its crop. Kept in the
 * input's pixels in the same undo list as the strokes.
 */
export interface LookEdit {
  mode: 'look'
  box: RegionBox
}

/** What the editor's undo list holds: strokes and look-again boxes, in the order they were made. */
export type Edit = Stroke | LookEdit

/** The tool a drag uses: a brush, or a look-again box. */
export type Tool = BrushMode | 'look'

export const strokesOf = (edits: readonly Edit[]): Stroke[] => edits.filter((e): e is Stroke => e.mode !== 'look')
export const boxesOf = (edits: readonly Edit[]): RegionBox[] => edits.flatMap((e) => (e.mode === 'look' ? [e.box] : []))

/**
 * The box a drag from `a` to `b` (input pixels) spans, in whole pixels and clipped to the
 * width × height image; null when a side is under `MIN_REGION_SIDE` (a click, a slip).
 */
export function boxFrom(a: readonly [number, number], b: readonly [number, number], width: number, height: number): RegionBox | null {
  const x0 = Math.max(0, Math.floor(Math.min(a[0], b[0])))
  const y0 = Math.max(0, Math.floor(Math.min(a[1], b[1])))
  const x1 = Math.min(width, Math.ceil(Math.max(a[0], b[0])))
  const y1 = Math.min(height, Math.ceil(Math.max(a[1], b[1])))
  if (x1 - x0 < MIN_REGION_SIDE || y1 - y0 < MIN_REGION_SIDE) return null
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }
}
