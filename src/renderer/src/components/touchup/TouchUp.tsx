import { useEffect, useRef, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { boxesOf, type Tool } from '../../lib/brush'
import { listenOnWindow } from '../../lib/window-events'
import { useStore } from '../../store'
import { Modal } from '../Modal'
import { useZoomPan } from '../useZoomPan'
import { ZoomControls } from '../ZoomControls'
import { TouchUpBoard, type Backdrop } from './TouchUpBoard'

/** What Cancel asks before it drops strokes that were not saved. */
export const DISCARD_QUESTION = 'Discard your unsaved strokes and boxes?'

/**
 * The touch-up editor of one done file (docs/touch-up.md "Touch-up"): Keep and Remove brushes
 * (size, hardness) painted over the cut-out, each stroke previewed by the app without running
 * the model; a Look again box, for which the model runs again on that crop (one model run);
 * undo and redo (Ctrl+Z, Ctrl+Shift+Z), zoom at the cursor and pan (`useZoomPan`, as the
 * before/after view), before/after, a backdrop, the strokes' tint (hold H to hide it).
 * Save replaces the file's results in the destination and keeps the previous version beside
 * them; Cancel (or Esc) drops the strokes, asking first when some are not saved.
 */
export function TouchUp(): React.JSX.Element | null {
  const t = useStore(useShallow((s) => s.touchUp))
  const { closeTouchUp, addStroke, undoStroke, redoStroke, saveTouchUp } = useStore.getState()
  const [mode, setMode] = useState<Tool>('remove')
  const [size, setSize] = useState<number | null>(null)
  const [hardness, setHardness] = useState(0.8)
  const [before, setBefore] = useState(false)
  const [tint, setTint] = useState(0.45)
  const [hideTint, setHideTint] = useState(false)
  const zoom = useZoomPan(t?.size ?? null)
  const [moving, setMoving] = useState(false)
  const [backdrop, setBackdrop] = useState<Backdrop>('checker')
  const [colour, setColour] = useState('#3b82f6')
  const long = t?.size ? Math.max(t.size.width, t.size.height) : 0
  useEffect(() => {
    if (long > 0 && size === null) setSize(Math.max(4, Math.round(long / 25)))
  }, [long, size])

  // Cancel, Close and Esc: strokes not saved are dropped only when the user says so.
  const cancel = (): void => {
    const s = useStore.getState().touchUp
    if (s && s.strokes.length > 0 && !s.saved && !window.confirm(DISCARD_QUESTION)) return
    closeTouchUp()
  }
  const keys = useRef({ zoom })
  keys.current = { zoom }

  // Keys on the whole window while the editor is open (Esc is the dialog's): a button that gets disabled (Redo with
  // nothing left) drops the focus to the page, and Ctrl+Z must still work.
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const target = e.target
      // A field being typed in keeps its keys; a slider and a tool (a radio) do not.
      if (target instanceof HTMLInputElement && target.type !== 'range' && target.type !== 'radio') return
      if (target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return
      const mod = e.ctrlKey || e.metaKey
      const key = e.key.toLowerCase()
      const z = keys.current.zoom
      if (mod && key === 'z' && e.shiftKey) redoStroke()
      else if (mod && key === 'z') undoStroke()
      else if (mod && key === 'y') redoStroke()
      else if (e.key === '+' || e.key === '=') z.zoomIn()
      else if (e.key === '-') z.zoomOut()
      else if (e.key === '0') z.fit()
      else if (e.key === '1') z.actual()
      // Held, H hides the strokes' tint to judge the result under it.
      else if (key === 'h' && !mod) setHideTint(true)
      else return
      e.preventDefault()
    }
    const onKeyUp = (e: KeyboardEvent): void => {
      if (e.key.toLowerCase() === 'h') setHideTint(false)
    }
    const onBlur = (): void => setHideTint(false)
    return listenOnWindow({ keydown: onKey, keyup: onKeyUp, blur: onBlur })
  }, [redoStroke, undoStroke])

  if (!t) return null
  const brushSize = size ?? 20
  const boxCount = boxesOf(t.strokes).length
  const strokeCount = t.strokes.length - boxCount
  const status = t.error
    ? null
    : t.saving
      ? 'Saving…'
      : t.looking
        ? 'Looking again at the box…'
        : t.updating
          ? 'Updating the preview…'
          : t.lastMs !== null
            ? `Preview updated in ${t.lastMs} ms`
            : null

  return (
    <Modal
      label={`Touch up: ${t.name}`}
      title={`Touch up ${t.name}`}
      actions={
        <>
          <button type="button" className="btn" onClick={cancel} data-testid="touchup-cancel">
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
        </>
      }
      onClose={cancel}
      closeOnBackdrop={false}
      returnFocusTo={() => document.querySelector<HTMLElement>('[data-testid=item-list]')}
      className="touchup"
      testId="touchup"
    >
      <div className="row small">
        <fieldset className="row tight choices">
          <legend className="sr-only">Tool</legend>
          {(['keep', 'remove', 'look'] as const).map((m) => (
            <label
              key={m}
              className={`btn small${mode === m ? ' primary' : ''}`}
              title={m === 'look' ? 'Drag a box round a part the model got wrong: it looks again at that crop' : undefined}
              data-testid={`touchup-${m}`}
            >
              <input type="radio" name="touchup-tool" value={m} checked={mode === m} onChange={() => setMode(m)} />
              {m === 'keep' ? 'Keep' : m === 'remove' ? 'Remove' : 'Look again'}
            </label>
          ))}
        </fieldset>
        <label className="row tight">
          Size
          <input
            type="range"
            min={2}
            max={Math.max(8, Math.round(long / 4))}
            value={brushSize}
            onChange={(e) => setSize(Number(e.target.value))}
            disabled={mode === 'look'}
            data-testid="touchup-size"
          />
          <span className="muted touchup-size">{brushSize} px</span>
        </label>
        <label className="row tight">
          Hardness
          <input
            type="range"
            min={0}
            max={100}
            value={Math.round(hardness * 100)}
            onChange={(e) => setHardness(Number(e.target.value) / 100)}
            disabled={mode === 'look'}
            data-testid="touchup-hardness"
          />
        </label>
        <label className="row tight" title="How strongly the strokes are tinted over the result; hold H to hide them">
          Tint
          <input
            type="range"
            min={0}
            max={100}
            value={Math.round(tint * 100)}
            onChange={(e) => setTint(Number(e.target.value) / 100)}
            aria-label="Strokes' tint"
            data-testid="touchup-tint"
          />
        </label>
        <button
          type="button"
          className="btn small"
          onClick={undoStroke}
          disabled={t.strokes.length === 0 || t.saving}
          title="Undo (Ctrl+Z)"
          data-testid="touchup-undo"
        >
          Undo
        </button>
        <button
          type="button"
          className="btn small"
          onClick={redoStroke}
          disabled={t.undone.length === 0 || t.saving}
          title="Redo (Ctrl+Shift+Z)"
          data-testid="touchup-redo"
        >
          Redo
        </button>
        <span className="grow" />
        <button
          type="button"
          className={`btn small${moving ? ' primary' : ''}`}
          aria-pressed={moving}
          onClick={() => setMoving((v) => !v)}
          title="Move the view (or hold Space)"
        >
          Move
        </button>
        <ZoomControls zoom={zoom} testId="touchup-zoom" />
        <button
          type="button"
          className={`btn small${before ? ' primary' : ''}`}
          aria-pressed={before}
          onClick={() => setBefore((v) => !v)}
          data-testid="touchup-before"
        >
          Before
        </button>
        <select value={backdrop} onChange={(e) => setBackdrop(e.target.value as Backdrop)} aria-label="Background behind the cut-out">
          <option value="checker">Checkerboard</option>
          <option value="white">White</option>
          <option value="black">Black</option>
          <option value="colour">Colour</option>
        </select>
        {backdrop === 'colour' && (
          <input type="color" value={colour} onChange={(e) => setColour(e.target.value)} aria-label="Background colour" />
        )}
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
          zoom={zoom}
          tint={hideTint ? 0 : tint}
          backdrop={backdrop}
          colour={colour}
          onStroke={addStroke}
        />
      ) : (
        <div className="touchup-stage muted">{t.error ? '' : 'Opening…'}</div>
      )}
      <div className="row small touchup-footer" aria-live="polite">
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
            Saved: {t.saved.outputs.length} file{t.saved.outputs.length === 1 ? '' : 's'} replaced; the previous version is kept beside{' '}
            {t.saved.outputs.length === 1 ? 'it' : 'them'} (
            {t.saved.previous
              .filter(Boolean)
              .map((p) => p.split(/[\\/]/).pop())
              .join(', ')}
            ).
          </span>
        )}
        <span className="grow" />
        <span className="muted">
          {strokeCount} stroke{strokeCount === 1 ? '' : 's'}
          {boxCount > 0 && ` · ${boxCount} box${boxCount === 1 ? '' : 'es'}`} · hold H to hide the tint · Space + drag moves
        </span>
      </div>
    </Modal>
  )
}
