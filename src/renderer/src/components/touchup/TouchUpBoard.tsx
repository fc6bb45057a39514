import { useCallback, useEffect, useRef, useState } from 'react'
import type { RegionBox } from '../../../../shared/regions'
import { boxesOf, boxFrom, OVERLAY_COLOUR, paintStrokes, strokesOf, type Edit, type Stroke, type Tool } from '../../lib/brush'
import { listenOnWindow } from '../../lib/window-events'
import type { ZoomPan } from '../useZoomPan'

export type Backdrop = 'checker' | 'white' | 'black' | 'colour'

export interface BoardProps {
  name: string
  size: { width: number; height: number }
  preview: { width: number; height: number }
  photo: string
  cutout: string
  /** Show the photo as it was (before) instead of the cutout (after). */
  before: boolean
  /** Strokes and look-again boxes. */
  strokes: readonly Edit[]
  brush: { mode: Tool; size: number; hardness: number }
  /** Move the view instead of painting (also with Space held, or the middle button). */
  moving: boolean
  /** The view's zoom and pan (`useZoomPan`, in the photo's pixels), shared with the editor's buttons. */
  zoom: ZoomPan
  /** The strokes' tint: 0 (hidden) to 1. */
  tint: number
  backdrop: Backdrop
  colour: string
  onStroke(edit: Edit): void
}

/**
 * The photo or the cutout over the backdrop, zoomed and panned in a viewport of a fixed size,
 * with the strokes tinted over it (green keep, red remove) on a canvas of the preview's size,
 * and the look-again boxes outlined in two tones (dark solid under light dashes) that show on
 * any picture. A drag paints a stroke in the input's pixels (with the Look again tool: spans a
 * box), the brush's outline at its size following the pointer; with Move, Space or the middle
 * button it pans the view; the wheel zooms at the cursor.
 */
export function TouchUpBoard(p: BoardProps): React.JSX.Element {
  const overlay = useRef<HTMLCanvasElement>(null)
  const [space, setSpace] = useState(false)
  const [pointer, setPointer] = useState<{ x: number; y: number } | null>(null)
  const stageBox = useRef<HTMLDivElement | null>(null)
  const drag = useRef<{
    stroke: Stroke | null
    box: { from: [number, number]; to: [number, number] } | null
    pan: { x: number; y: number } | null
  }>({
    stroke: null,
    box: null,
    pan: null
  })
  const [, repaint] = useState(0)
  // One callback for the stage's element (a new one each render would hand the hook null, then the element, every time).
  const { viewportRef } = p.zoom
  const setStage = useCallback(
    (el: HTMLDivElement | null): void => {
      stageBox.current = el
      viewportRef(el)
    },
    [viewportRef]
  )

  useEffect(() => {
    const down = (e: KeyboardEvent): void => {
      // Not while a field has the focus; a tool (a radio) is no field.
      const field = e.target instanceof HTMLInputElement && e.target.type !== 'radio'
      if (e.code === 'Space' && !field) setSpace(e.type === 'keydown')
    }
    return listenOnWindow({ keydown: down, keyup: down })
  }, [])

  // The strokes, and the one being drawn, tinted over the picture.
  useEffect(() => {
    const ctx = overlay.current?.getContext('2d')
    if (!ctx) return
    ctx.clearRect(0, 0, p.preview.width, p.preview.height)
    const { stroke: current } = drag.current
    const scale = p.preview.width / p.size.width
    const strokes = strokesOf(p.strokes)
    paintStrokes(ctx, current ? [...strokes, current] : strokes, scale, OVERLAY_COLOUR)
  })

  const panning = p.moving || space
  const toInput = (e: React.PointerEvent): [number, number] => {
    const r = overlay.current!.getBoundingClientRect()
    return [((e.clientX - r.left) / r.width) * p.size.width, ((e.clientY - r.top) / r.height) * p.size.height]
  }
  const follow = (e: React.PointerEvent): void => {
    const r = stageBox.current?.getBoundingClientRect()
    if (r) setPointer({ x: e.clientX - r.left, y: e.clientY - r.top })
  }
  const onDown = (e: React.PointerEvent): void => {
    e.currentTarget.setPointerCapture(e.pointerId)
    if (panning || e.button === 1) {
      drag.current.pan = { x: e.clientX, y: e.clientY }
      return
    }
    if (e.button !== 0) return
    const { mode, size, hardness } = p.brush
    if (mode === 'look') drag.current.box = { from: toInput(e), to: toInput(e) }
    else drag.current.stroke = { mode, size, hardness, points: [toInput(e)] }
    repaint((n) => n + 1)
  }
  const onMove = (e: React.PointerEvent): void => {
    follow(e)
    const { pan, stroke, box } = drag.current
    if (box) {
      box.to = toInput(e)
      repaint((n) => n + 1)
    } else if (pan) {
      p.zoom.pan(e.clientX - pan.x, e.clientY - pan.y)
      drag.current.pan = { x: e.clientX, y: e.clientY }
    } else if (stroke) {
      stroke.points.push(toInput(e))
      repaint((n) => n + 1)
    }
  }
  const onUp = (): void => {
    const { stroke, box } = drag.current
    drag.current = { stroke: null, box: null, pan: null }
    if (stroke) p.onStroke(stroke)
    const looked = box ? boxFrom(box.from, box.to, p.size.width, p.size.height) : null
    if (looked) p.onStroke({ mode: 'look', box: looked })
    else if (box) repaint((n) => n + 1)
  }

  const backdrop = p.backdrop === 'colour' ? { background: p.colour } : undefined
  const { box: drawing } = drag.current
  const drawn = drawing ? boxFrom(drawing.from, drawing.to, p.size.width, p.size.height) : null
  const boxes = boxesOf(p.strokes)
  const scale = p.zoom.view?.scale ?? 0
  const brushOutline = pointer && !panning && p.brush.mode !== 'look' && scale > 0 ? Math.max(2, p.brush.size * scale) : 0
  const pct = (v: number, of: number): string => `${(v / of) * 100}%`
  const outline = (b: RegionBox, key: string | number, testId: string): React.JSX.Element => (
    <div
      key={key}
      className="touchup-box"
      style={{
        left: pct(b.x, p.size.width),
        top: pct(b.y, p.size.height),
        width: pct(b.width, p.size.width),
        height: pct(b.height, p.size.height)
      }}
      data-testid={testId}
    />
  )
  return (
    <div ref={setStage} className="touchup-stage" data-testid="touchup-stage" onPointerLeave={() => setPointer(null)}>
      <div
        className={`touchup-board ${p.backdrop === 'checker' ? 'checker' : p.backdrop}`}
        style={{ ...p.zoom.style, ...backdrop }}
        data-testid="touchup-board"
      >
        <img
          src={p.before ? p.photo : p.cutout}
          alt={`${p.before ? 'Original' : 'Cut-out'} of ${p.name}`}
          draggable={false}
          data-testid="touchup-image"
        />
        <canvas
          ref={overlay}
          width={p.preview.width}
          height={p.preview.height}
          className={panning ? 'moving' : p.brush.mode === 'look' ? 'boxing' : ''}
          style={{ opacity: p.tint }}
          onPointerDown={onDown}
          onPointerMove={onMove}
          onPointerUp={onUp}
          onPointerCancel={onUp}
          aria-label={
            p.brush.mode === 'look'
              ? `Drag a box for the model to look again at on ${p.name}`
              : `Paint ${p.brush.mode === 'keep' ? 'Keep' : 'Remove'} strokes on ${p.name}`
          }
          data-testid="touchup-canvas"
          data-tint={p.tint}
        />
        {boxes.map((b, i) => outline(b, i, 'touchup-box'))}
        {drawn && outline(drawn, 'drawing', 'touchup-box-drawing')}
      </div>
      {brushOutline > 0 && (
        <div
          className="touchup-brush"
          style={{
            width: brushOutline,
            height: brushOutline,
            transform: `translate(${pointer!.x - brushOutline / 2}px, ${pointer!.y - brushOutline / 2}px)`
          }}
          data-testid="touchup-brush-outline"
          aria-hidden="true"
        />
      )}
    </div>
  )
}
