import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react'
import { fitView, panBy, wheelFactor, zoomAt, zoomLabel, ZOOM_STEP, actualScale, type Size, type View } from '../lib/zoom'

/** What a view that zooms and pans gives its component (the before/after view, the touch-up editor). */
export interface ZoomPan {
  /** Attach to the viewport: the element the picture is seen through (it clips; its size does not follow the picture). */
  viewportRef: (el: HTMLDivElement | null) => void
  viewport: Size | null
  view: View | null
  fitted: boolean
  /** "Fit (42 %)" or "150 %". */
  label: string
  /** The picture's box in the viewport: put on the element that holds the picture. */
  style: React.CSSProperties
  /** × ZOOM_STEP (or its inverse) around the viewport's centre. */
  zoomIn(): void
  zoomOut(): void
  fit(): void
  /** 100 %: one picture pixel per screen pixel, around the viewport's centre. */
  actual(): void
  /** Moves the picture by (dx, dy) screen pixels. */
  pan(dx: number, dy: number): void
}

const dpr = (): number => window.devicePixelRatio || 1

/**
 * Zoom and pan of a picture of `content` size (its own pixels; null until known) inside a
 * viewport (lib/zoom.ts): the wheel zooms at the cursor, the buttons and keys at the centre,
 * `pan` moves it. The view stays fitted while the viewport or the picture changes size, until
 * the user zooms or pans; a new picture of the same size keeps the view.
 */
export function useZoomPan(content: Size | null): ZoomPan {
  const [el, setEl] = useState<HTMLDivElement | null>(null)
  const [viewport, setViewport] = useState<Size | null>(null)
  const [view, setView] = useState<View | null>(null)
  const [fitted, setFitted] = useState(true)
  // The latest of each for the wheel handler, which is added once per element.
  const latest = useRef({ viewport, view, content })
  latest.current = { viewport, view, content }

  useLayoutEffect(() => {
    if (!el) return
    const measure = (): void =>
      setViewport((v) =>
        v && v.width === el.clientWidth && v.height === el.clientHeight ? v : { width: el.clientWidth, height: el.clientHeight }
      )
    measure()
    const ro = new ResizeObserver(measure)
    ro.observe(el)
    return () => ro.disconnect()
  }, [el])

  const cw = content?.width ?? 0
  const ch = content?.height ?? 0
  useLayoutEffect(() => {
    if (!viewport || cw <= 0 || ch <= 0) return
    if (fitted) setView(fitView(viewport, { width: cw, height: ch }))
    else
      setView((v) =>
        v ? zoomAt(v, v.scale, { x: 0, y: 0 }, viewport, { width: cw, height: ch }, dpr()) : fitView(viewport, { width: cw, height: ch })
      )
  }, [viewport, cw, ch, fitted])

  const zoomTo = useCallback((scale: (v: View) => number, at?: { x: number; y: number }): void => {
    const { viewport: vp, view: v, content: c } = latest.current
    if (!vp || !v || !c) return
    setView(zoomAt(v, scale(v), at ?? { x: vp.width / 2, y: vp.height / 2 }, vp, c, dpr()))
    setFitted(false)
  }, [])

  // The wheel zooms at the cursor; the page must not scroll meanwhile, so the listener is not passive.
  useEffect(() => {
    if (!el) return
    const onWheel = (e: WheelEvent): void => {
      e.preventDefault()
      const r = el.getBoundingClientRect()
      const delta = e.deltaMode === 1 ? e.deltaY * 33 : e.deltaY
      zoomTo((v) => v.scale * wheelFactor(delta), { x: e.clientX - r.left, y: e.clientY - r.top })
    }
    el.addEventListener('wheel', onWheel, { passive: false })
    return () => el.removeEventListener('wheel', onWheel)
  }, [el, zoomTo])

  const shown = view && content ? view : null
  return {
    viewportRef: setEl,
    viewport,
    view: shown,
    fitted,
    label: shown ? zoomLabel(shown.scale, fitted, dpr()) : 'Fit',
    style:
      shown && content
        ? {
            position: 'absolute',
            left: 0,
            top: 0,
            width: content.width * shown.scale,
            height: content.height * shown.scale,
            transform: `translate(${shown.x}px, ${shown.y}px)`
          }
        : { visibility: 'hidden' },
    zoomIn: () => zoomTo((v) => v.scale * ZOOM_STEP),
    zoomOut: () => zoomTo((v) => v.scale / ZOOM_STEP),
    fit: () => setFitted(true),
    actual: () => zoomTo(() => actualScale(dpr())),
    pan: (dx, dy) => {
      const { viewport: vp, view: v, content: c } = latest.current
      if (!vp || !v || !c) return
      const next = panBy(v, dx, dy, vp, c)
      latest.current = { ...latest.current, view: next }
      setView(next)
      setFitted(false)
    }
  }
}
