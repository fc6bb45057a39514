import { useCallback, useEffect, useState, type RefObject } from 'react'

/**
 * Windowing for long lists of fixed-height rows: only the rows in view (plus `overscan`) are
 * rendered, absolutely placed inside a spacer of the full height. Pure part kept apart for tests.
 */
export function visibleRange(
  scrollTop: number,
  viewport: number,
  rowHeight: number,
  count: number,
  overscan = 6
): { start: number; end: number } {
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight)
  const start = Math.max(0, first - overscan)
  const end = Math.min(count, Math.ceil((Math.max(0, scrollTop) + viewport) / rowHeight) + overscan)
  return { start, end: Math.max(start, end) }
}

export function useWindowedRows(ref: RefObject<HTMLElement | null>, rowHeight: number, count: number): { start: number; end: number } {
  const [view, setView] = useState({ top: 0, height: 600 })
  const measure = useCallback(() => {
    const el = ref.current
    if (el) setView((v) => (v.top === el.scrollTop && v.height === el.clientHeight ? v : { top: el.scrollTop, height: el.clientHeight }))
  }, [ref])
  useEffect(() => {
    const el = ref.current
    if (!el) return
    measure()
    el.addEventListener('scroll', measure, { passive: true })
    const observer = new ResizeObserver(measure)
    observer.observe(el)
    return () => {
      el.removeEventListener('scroll', measure)
      observer.disconnect()
    }
  }, [ref, measure])
  return visibleRange(view.top, view.height, rowHeight, count)
}
