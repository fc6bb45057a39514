import { useEffect, useRef, useState } from 'react'
import { useStore } from '../store'
import { ranOnText } from '../lib/format'
import { useReturnFocus } from './common'

const ZOOMS = [1, 1.5, 2, 3, 4, 6, 8]
type Backdrop = 'checker' | 'white' | 'black'

/**
 * Before/after of one result: the original on the left of the divider, the result on the
 * right over a checkerboard (or white/black) so transparency shows; zoom in and scroll.
 * Keys: ←/→ move the divider, +/− zoom, 0 fits, Esc closes and gives focus back to the button
 * that opened it.
 */
export function BeforeAfter(): React.JSX.Element | null {
  const item = useStore((s) => (s.viewerItemId ? s.items[s.itemPos[s.viewerItemId] ?? -1] : undefined))
  const close = (): void => useStore.getState().setViewer(null)
  const [split, setSplit] = useState(50)
  const [zoom, setZoom] = useState(0)
  const [backdrop, setBackdrop] = useState<Backdrop>('checker')
  const [beforeMissing, setBeforeMissing] = useState(false)
  const dialog = useRef<HTMLDivElement>(null)
  useReturnFocus(() => document.querySelector<HTMLElement>('[data-testid=item-list]'))

  useEffect(() => {
    dialog.current?.focus()
  }, [item?.id])

  if (!item) return null
  const zoomIn = (): void => setZoom((z) => Math.min(ZOOMS.length - 1, z + 1))
  const zoomOut = (): void => setZoom((z) => Math.max(0, z - 1))
  const onKey = (e: React.KeyboardEvent): void => {
    if (e.target instanceof HTMLInputElement && e.target.type === 'range' && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) return
    if (e.key === 'Escape') close()
    else if (e.key === 'ArrowLeft') setSplit((s) => Math.max(0, s - 5))
    else if (e.key === 'ArrowRight') setSplit((s) => Math.min(100, s + 5))
    else if (e.key === '+' || e.key === '=') zoomIn()
    else if (e.key === '-') zoomOut()
    else if (e.key === '0') setZoom(0)
    else return
    e.preventDefault()
  }
  const scale = ZOOMS[zoom]!

  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <div
        className="card viewer"
        role="dialog"
        aria-modal="true"
        aria-label={`Before and after: ${item.name}`}
        tabIndex={-1}
        ref={dialog}
        onKeyDown={onKey}
        data-testid="viewer"
      >
        <div className="row">
          <h2 className="grow" style={{ margin: 0 }}>
            {item.name}
          </h2>
          <span className="muted small">Zoom {Math.round(scale * 100)} %</span>
          <button type="button" className="btn small" onClick={zoomOut} disabled={zoom === 0} aria-label="Zoom out">
            −
          </button>
          <button type="button" className="btn small" onClick={zoomIn} disabled={zoom === ZOOMS.length - 1} aria-label="Zoom in">
            +
          </button>
          <button type="button" className="btn small" onClick={() => setZoom(0)} disabled={zoom === 0}>
            Fit
          </button>
          <select value={backdrop} onChange={(e) => setBackdrop(e.target.value as Backdrop)} aria-label="Background behind the result">
            <option value="checker">Checkerboard</option>
            <option value="white">White</option>
            <option value="black">Black</option>
          </select>
          <button type="button" className="btn" onClick={close}>
            Close
          </button>
        </div>
        <div className={`viewer-stage ${backdrop}`}>
          <div className="viewer-canvas" style={{ width: `${scale * 100}%`, height: `${scale * 100}%` }}>
            {item.after_url && (
              <img src={item.after_url} alt={`Result of ${item.name}`} />
            )}
            {item.before_url && !beforeMissing && (
              <img
                src={item.before_url}
                alt={`Original of ${item.name}`}
                style={{ clipPath: `inset(0 ${100 - split}% 0 0)` }}
                onError={() => setBeforeMissing(true)}
              />
            )}
            <div className="viewer-divider" style={{ left: `${split}%` }} />
            <span className="viewer-label" style={{ left: 8 }}>
              Before
            </span>
            <span className="viewer-label" style={{ right: 8 }}>
              After
            </span>
          </div>
        </div>
        <div className="row">
          <label className="grow row" style={{ flexWrap: 'nowrap' }}>
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
        {beforeMissing && <div className="muted small">The original is no longer available (uploads are kept for the retention time only).</div>}
        {item.outputs.length > 0 && <div className="muted small mono">{item.outputs.join('  ·  ')}</div>}
        {ranOnText(item) && (
          <div className="muted small" data-testid="viewer-device">
            Model and device: {ranOnText(item)}
          </div>
        )}
      </div>
    </div>
  )
}
