import { useRef, useState } from 'react'
import { ranOnText } from '../../lib/format'
import { useStore } from '../../store'
import { Modal } from '../../components/Modal'
import { ZoomControls } from '../../components/ZoomControls'
import { useZoomPan } from '../../components/useZoomPan'

type Backdrop = 'checker' | 'white' | 'black'

/**
 * Before/after of one result: the original on the left of the divider, the result on the
 * right over a checkerboard (or white/black) so transparency shows. The wheel zooms at the
 * cursor, a drag pans, the buttons zoom at the centre (`useZoomPan`); the divider is a place in
 * the viewport, not in the picture, so it stays in view at any zoom.
 * Keys: ←/→ move the divider, +/− zoom, 0 fits, 1 is 100 %, Esc closes and gives focus back to
 * the button that opened it.
 */
export function BeforeAfter(): React.JSX.Element | null {
  const item = useStore((s) => (s.viewerItemId ? s.items[s.itemPos[s.viewerItemId] ?? -1] : undefined))
  const close = (): void => useStore.getState().setViewer(null)
  const [split, setSplit] = useState(50)
  const [backdrop, setBackdrop] = useState<Backdrop>('checker')
  const [beforeMissing, setBeforeMissing] = useState(false)
  const [natural, setNatural] = useState<{ width: number; height: number } | null>(null)
  const zp = useZoomPan(natural)
  const drag = useRef<{ x: number; y: number } | null>(null)

  if (!item) return null
  const onKey = (e: React.KeyboardEvent): void => {
    if (e.target instanceof HTMLInputElement && e.target.type === 'range' && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) return
    if (e.key === 'ArrowLeft') setSplit((s) => Math.max(0, s - 5))
    else if (e.key === 'ArrowRight') setSplit((s) => Math.min(100, s + 5))
    else if (e.key === '+' || e.key === '=') zp.zoomIn()
    else if (e.key === '-') zp.zoomOut()
    else if (e.key === '0') zp.fit()
    else if (e.key === '1') zp.actual()
    else return
    e.preventDefault()
  }
  // A drag anywhere on the picture pans it.
  const onDown = (e: React.PointerEvent): void => {
    if (e.button !== 0 && e.button !== 1) return
    e.currentTarget.setPointerCapture(e.pointerId)
    drag.current = { x: e.clientX, y: e.clientY }
  }
  const onMove = (e: React.PointerEvent): void => {
    const d = drag.current
    if (!d) return
    zp.pan(e.clientX - d.x, e.clientY - d.y)
    drag.current = { x: e.clientX, y: e.clientY }
  }
  const onUp = (): void => {
    drag.current = null
  }

  return (
    <Modal
      label={`Before and after: ${item.name}`}
      title={item.name}
      actions={
        <>
          <ZoomControls zoom={zp} testId="viewer-zoom" small />
          <select value={backdrop} onChange={(e) => setBackdrop(e.target.value as Backdrop)} aria-label="Background behind the result">
            <option value="checker">Checkerboard</option>
            <option value="white">White</option>
            <option value="black">Black</option>
          </select>
          <button type="button" className="btn" onClick={close}>
            Close
          </button>
        </>
      }
      onClose={close}
      returnFocusTo={() => document.querySelector<HTMLElement>('[data-testid=item-list]')}
      focusKey={item.id}
      className="viewer"
      testId="viewer"
      onKeyDown={onKey}
    >
      <div
        className={`viewer-stage ${backdrop}`}
        ref={zp.viewportRef}
        onPointerDown={onDown}
        onPointerMove={onMove}
        onPointerUp={onUp}
        onPointerCancel={onUp}
        data-testid="viewer-stage"
      >
        <div className="viewer-canvas" style={zp.style} data-testid="viewer-canvas">
          {item.after_url && (
            <img
              src={item.after_url}
              alt={`Result of ${item.name}`}
              draggable={false}
              onLoad={(e) => setNatural({ width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight })}
            />
          )}
        </div>
        {/* The original over the result, cut at the divider: a place in the viewport. */}
        {item.before_url && !beforeMissing && (
          <div className="viewer-before" style={{ clipPath: `inset(0 ${100 - split}% 0 0)` }}>
            <div className="viewer-canvas" style={zp.style}>
              <img src={item.before_url} alt={`Original of ${item.name}`} draggable={false} onError={() => setBeforeMissing(true)} />
            </div>
          </div>
        )}
        <div className="viewer-divider" style={{ left: `${split}%` }} data-testid="viewer-divider" />
        <span className="viewer-label before">Before</span>
        <span className="viewer-label after">After</span>
      </div>
      <div className="row">
        <label className="grow row nowrap">
          <span className="small muted">Before</span>
          <input
            type="range"
            className="grow"
            min={0}
            max={100}
            value={split}
            onChange={(e) => setSplit(Number(e.target.value))}
            aria-label="Divider between before and after"
            data-testid="viewer-slider"
          />
          <span className="small muted">After</span>
        </label>
      </div>
      {beforeMissing && (
        <div className="muted small">The original is no longer available (uploads are kept for the retention time only).</div>
      )}
      {item.outputs.length > 0 && <div className="muted small mono">{item.outputs.join('  ·  ')}</div>}
      {ranOnText(item) && (
        <div className="muted small" data-testid="viewer-device">
          Model and device: {ranOnText(item)}
        </div>
      )}
    </Modal>
  )
}
