import { useEffect, useRef, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { boxesOf, type Tool } from '../../lib/brush'
import { useStore } from '../../store'
import { useReturnFocus } from '../../components/common'
import { TouchUpBoard, type Backdrop } from './TouchUpBoard'

const ZOOMS = [1, 1.5, 2, 3, 4, 6, 8]

/**
 * The touch-up editor of one done file (docs/review.md "Touch-up"): Keep and Remove brushes
 * (size, hardness) painted over the cut-out, each stroke previewed by the app without running
 * the model; a Look again box, for which the model runs again on that crop (about a second);
 * undo and redo (Ctrl+Z, Ctrl+Shift+Z), zoom and pan, before/after, a backdrop.
 * Save replaces the file's results in the destination and keeps the previous version beside
 * them; Cancel (or Esc) drops the strokes.
 */
export function TouchUp(): React.JSX.Element | null {
  const t = useStore(useShallow((s) => s.touchUp))
  const { closeTouchUp, addStroke, undoStroke, redoStroke, saveTouchUp } = useStore.getState()
  const [mode, setMode] = useState<Tool>('remove')
  const [size, setSize] = useState<number | null>(null)
  const [hardness, setHardness] = useState(0.8)
  const [zoom, setZoom] = useState(0)
  const [before, setBefore] = useState(false)
  const [moving, setMoving] = useState(false)
  const [backdrop, setBackdrop] = useState<Backdrop>('checker')
  const [colour, setColour] = useState('#3b82f6')
  const dialog = useRef<HTMLDivElement>(null)
  useReturnFocus(() => document.querySelector<HTMLElement>('[data-testid=item-list]'))

  useEffect(() => {
    dialog.current?.focus()
  }, [])
  const long = t?.size ? Math.max(t.size.width, t.size.height) : 0
  useEffect(() => {
    if (long > 0 && size === null) setSize(Math.max(4, Math.round(long / 25)))
  }, [long, size])

  // Keys on the whole window while the editor is open: a button that gets disabled (Redo with
  // nothing left) drops the focus to the page, and Ctrl+Z must still work.
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const target = e.target
      if (target instanceof HTMLInputElement && target.type !== 'range') return
      if (target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return
      const mod = e.ctrlKey || e.metaKey
      const key = e.key.toLowerCase()
      if (e.key === 'Escape') closeTouchUp()
      else if (mod && key === 'z' && e.shiftKey) redoStroke()
      else if (mod && key === 'z') undoStroke()
      else if (mod && key === 'y') redoStroke()
      else if (e.key === '+' || e.key === '=') setZoom((z) => Math.min(ZOOMS.length - 1, z + 1))
      else if (e.key === '-') setZoom((z) => Math.max(0, z - 1))
      else if (e.key === '0') setZoom(0)
      else return
      e.preventDefault()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [closeTouchUp, redoStroke, undoStroke])

  if (!t) return null
  const brushSize = size ?? 20
  const boxCount = boxesOf(t.strokes).length
  const strokeCount = t.strokes.length - boxCount
  const status = t.error ? null : t.saving ? 'Saving…' : t.looking ? 'Looking again at the box…' : t.updating ? 'Updating the preview…' : t.lastMs !== null ? `Preview updated in ${t.lastMs} ms` : null

  return (
    <div className="modal-backdrop">
      <div className="card touchup" role="dialog" aria-modal="true" aria-label={`Touch up: ${t.name}`} tabIndex={-1} ref={dialog} data-testid="touchup">
        <div className="row">
          <h2 className="grow" style={{ margin: 0 }}>
            Touch up {t.name}
          </h2>
          <button type="button" className="btn" onClick={closeTouchUp} data-testid="touchup-cancel">
            {t.saved ? 'Close' : 'Cancel'}
          </button>
          <button
            type="button"
            className="btn primary"
            onClick={() => void saveTouchUp()}
            disabled={t.saving || t.strokes.length === 0 || !t.size}
            data-testid="touchup-save"
          >
            Save
          </button>
        </div>
        <div className="row small">
          <div role="radiogroup" aria-label="Tool" className="row" style={{ gap: 4 }}>
            {(['keep', 'remove', 'look'] as const).map((m) => (
              <button
                key={m}
                type="button"
                role="radio"
                aria-checked={mode === m}
                className={`btn small${mode === m ? ' primary' : ''}`}
                onClick={() => setMode(m)}
                title={m === 'look' ? 'Drag a box round a part the model got wrong: it looks again at that crop' : undefined}
                data-testid={`touchup-${m}`}
              >
                {m === 'keep' ? 'Keep' : m === 'remove' ? 'Remove' : 'Look again'}
              </button>
            ))}
          </div>
          <label className="row" style={{ gap: 4 }}>
            Size
            <input type="range" min={2} max={Math.max(8, Math.round(long / 4))} value={brushSize} onChange={(e) => setSize(Number(e.target.value))} disabled={mode === 'look'} data-testid="touchup-size" />
            <span className="muted">{brushSize} px</span>
          </label>
          <label className="row" style={{ gap: 4 }}>
            Hardness
            <input type="range" min={0} max={100} value={Math.round(hardness * 100)} onChange={(e) => setHardness(Number(e.target.value) / 100)} disabled={mode === 'look'} data-testid="touchup-hardness" />
          </label>
          <button type="button" className="btn small" onClick={undoStroke} disabled={t.strokes.length === 0 || t.saving} title="Undo (Ctrl+Z)" data-testid="touchup-undo">
            Undo
          </button>
          <button type="button" className="btn small" onClick={redoStroke} disabled={t.undone.length === 0 || t.saving} title="Redo (Ctrl+Shift+Z)" data-testid="touchup-redo">
            Redo
          </button>
          <span className="grow" />
          <button type="button" className={`btn small${moving ? ' primary' : ''}`} aria-pressed={moving} onClick={() => setMoving((v) => !v)} title="Move the view (or hold Space)">
            Move
          </button>
          <button type="button" className="btn small" onClick={() => setZoom((z) => Math.max(0, z - 1))} disabled={zoom === 0} aria-label="Zoom out">
            −
          </button>
          <span className="muted">{Math.round(ZOOMS[zoom]! * 100)} %</span>
          <button type="button" className="btn small" onClick={() => setZoom((z) => Math.min(ZOOMS.length - 1, z + 1))} disabled={zoom === ZOOMS.length - 1} aria-label="Zoom in">
            +
          </button>
          <button type="button" className={`btn small${before ? ' primary' : ''}`} aria-pressed={before} onClick={() => setBefore((v) => !v)} data-testid="touchup-before">
            Before
          </button>
          <select value={backdrop} onChange={(e) => setBackdrop(e.target.value as Backdrop)} aria-label="Background behind the cut-out">
            <option value="checker">Checkerboard</option>
            <option value="white">White</option>
            <option value="black">Black</option>
            <option value="colour">Colour</option>
          </select>
          {backdrop === 'colour' && <input type="color" value={colour} onChange={(e) => setColour(e.target.value)} aria-label="Background colour" />}
        </div>
        {t.size && t.preview && t.photo && t.cutout ? (
          <TouchUpBoard
            name={t.name}
            size={t.size}
            preview={t.preview}
            photo={t.photo}
            cutout={t.cutout}
            before={before}
            strokes={t.strokes}
            brush={{ mode, size: brushSize, hardness }}
            moving={moving}
            zoom={ZOOMS[zoom]!}
            backdrop={backdrop}
            colour={colour}
            onStroke={addStroke}
          />
        ) : (
          <div className="touchup-stage muted">{t.error ? '' : 'Opening…'}</div>
        )}
        <div className="row small" aria-live="polite">
          {t.error && (
            <span className="field-error" role="alert" data-testid="touchup-error">
              {t.error}
            </span>
          )}
          {status && (
            <span className="muted" data-testid="touchup-status" data-updating={t.updating ? 'yes' : 'no'} aria-busy={t.updating}>
              {status}
            </span>
          )}
          {t.saved && (
            <span data-testid="touchup-saved">
              Saved: {t.saved.outputs.length} file{t.saved.outputs.length === 1 ? '' : 's'} replaced; the previous version is kept beside {t.saved.outputs.length === 1 ? 'it' : 'them'} (
              {t.saved.previous.filter(Boolean).map((p) => p.split(/[\\/]/).pop()).join(', ')}).
            </span>
          )}
          <span className="grow" />
          <span className="muted">
            {strokeCount} stroke{strokeCount === 1 ? '' : 's'}
            {boxCount > 0 && ` · ${boxCount} box${boxCount === 1 ? '' : 'es'}`} · green keeps, red removes, yellow looks again · Space + drag moves
          </span>
        </div>
      </div>
    </div>
  )
}
