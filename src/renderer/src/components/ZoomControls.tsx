import type { ZoomPan } from './useZoomPan'

/**
 * The zoom buttons of a zoomable picture (the before/after view, the touch-up editor): −, the
 * zoom in words, +, Fit and 100 %, the same keys named in their titles as `useZoomPan` takes.
 */
export function ZoomControls({ zoom, testId, small }: { zoom: ZoomPan; testId: string; small?: boolean }): React.JSX.Element {
  return (
    <>
      <button type="button" className="btn small" onClick={zoom.zoomOut} aria-label="Zoom out" title="Zoom out (−)">
        −
      </button>
      <span className={`muted${small ? ' small' : ''} zoom-label`} data-testid={testId}>
        {zoom.label}
      </span>
      <button
        type="button"
        className="btn small"
        onClick={zoom.zoomIn}
        aria-label="Zoom in"
        title="Zoom in (+); the wheel zooms at the cursor"
      >
        +
      </button>
      <button type="button" className="btn small" onClick={zoom.fit} aria-pressed={zoom.fitted} title="The whole picture (0)">
        Fit
      </button>
      <button type="button" className="btn small" onClick={zoom.actual} title="One pixel of the picture per pixel of the screen (1)">
        100 %
      </button>
    </>
  )
}
