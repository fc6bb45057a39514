import { useEffect, useLayoutEffect, useRef, useState } from 'react'
import { boxesOf, boxFrom, OVERLAY_COLOUR, paintBoxes, paintStrokes, strokesOf, type Edit, type Stroke, type Tool } from '../../lib/brush'

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
  zoom: number
  backdrop: Backdrop
  colour: string
  onStroke(edit: Edit): void
}

/**
 * The photo or the cutout over the backdrop, at a zoom of the size that fits, with the strokes
 * tinted over it (green keep, red remove) on a canvas of the preview's size, and the look-again
 * boxes outlined. A drag paints a stroke in the input's pixels (with the Look again tool: spans a
 * box); with Move, Space or the middle button it pans the view.
 */
export function TouchUpBoard(p: BoardProps): React.JSX.Element {
  const stage = useRef<HTMLDivElement>(null)
  const overlay = useRef<HTMLCanvasElement>(null)
  const [fit, setFit] = useState(1)
  const [space, setSpace] = useState(false)
  const drag = useRef<{ stroke: Stroke | null; box: { from: [number, number]; to: [number, number] } | null; pan: { x: number; y: number; left: number; top: number } | null }>({
    stroke: null,
    box: null,
    pan: null
  })
  const [, repaint] = useState(0)

  useLayoutEffect(() => {
    const el = stage.current
    if (!el) return
    const measure = (): void => setFit(Math.min((el.clientWidth - 2) / p.preview.width, (el.clientHeight - 2) / p.preview.height))
    measure()
    const ro = new ResizeObserver(measure)
    ro.observe(el)
    return () => ro.disconnect()
  }, [p.preview.width, p.preview.height])

  useEffect(() => {
    const down = (e: KeyboardEvent): void => {
      if (e.code === 'Space' && !(e.target instanceof HTMLInputElement)) setSpace(e.type === 'keydown')
    }
    window.addEventListener('keydown', down)
    window.addEventListener('keyup', down)
    return () => {
      window.removeEventListener('keydown', down)
      window.removeEventListener('keyup', down)
    }
  }, [])

  // The strokes, and the one being drawn, tinted over the picture.
  useEffect(() => {
    const ctx = overlay.current?.getContext('2d')
    if (!ctx) return
    ctx.clearRect(0, 0, p.preview.width, p.preview.height)
    const { stroke: current, box } = drag.current
    const scale = p.preview.width / p.size.width
    const strokes = strokesOf(p.strokes)
    paintStrokes(ctx, current ? [...strokes, current] : strokes, scale, OVERLAY_COLOUR)
    const drawn = box ? boxFrom(box.from, box.to, p.size.width, p.size.height) : null
    paintBoxes(ctx, drawn ? [...boxesOf(p.strokes), drawn] : boxesOf(p.strokes), scale)
  })

  const scale = fit * p.zoom
  const toInput = (e: React.PointerEvent): [number, number] => {
    const r = overlay.current!.getBoundingClientRect()
    return [((e.clientX - r.left) / r.width) * p.size.width, ((e.clientY - r.top) / r.height) * p.size.height]
  }
  const onDown = (e: React.PointerEvent): void => {
    e.currentTarget.setPointerCapture(e.pointerId)
    if (p.moving || space || e.button === 1) {
      drag.current.pan = { x: e.clientX, y: e.clientY, left: stage.current!.scrollLeft, top: stage.current!.scrollTop }
      return
    }
    if (e.button !== 0) return
    const { mode, size, hardness } = p.brush
    if (mode === 'look') drag.current.box = { from: toInput(e), to: toInput(e) }
    else drag.current.stroke = { mode, size, hardness, points: [toInput(e)] }
    repaint((n) => n + 1)
  }
  const onMove = (e: React.PointerEvent): void => {
    const { pan, stroke, box } = drag.current
    if (box) {
      box.to = toInput(e)
      repaint((n) => n + 1)
    } else if (pan) {
      stage.current!.scrollLeft = pan.left - (e.clientX - pan.x)
      stage.current!.scrollTop = pan.top - (e.clientY - pan.y)
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
  return (
    <div ref={stage} className="touchup-stage" data-testid="touchup-stage">
      <div
        className={`touchup-board ${p.backdrop === 'checker' ? 'checker' : p.backdrop}`}
        style={{ width: Math.round(p.preview.width * scale), height: Math.round(p.preview.height * scale), ...backdrop }}
      >
        <img src={p.before ? p.photo : p.cutout} alt={`${p.before ? 'Original' : 'Cut-out'} of ${p.name}`} draggable={false} data-testid="touchup-image" />
        <canvas
          ref={overlay}
          width={p.preview.width}
          height={p.preview.height}
          className={p.moving || space ? 'moving' : ''}
          onPointerDown={onDown}
          onPointerMove={onMove}
          onPointerUp={onUp}
          onPointerCancel={onUp}
          aria-label={p.brush.mode === 'look' ? `Drag a box for the model to look again at on ${p.name}` : `Paint ${p.brush.mode === 'keep' ? 'Keep' : 'Remove'} strokes on ${p.name}`}
          data-testid="touchup-canvas"
        />
      </div>
    </div>
  )
}
