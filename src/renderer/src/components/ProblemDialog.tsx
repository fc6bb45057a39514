import { useEffect, useRef } from 'react'
import { useStore } from '../store'
import { CopyButton, useReturnFocus } from './common'

/**
 * One file's problem in full: the plain words the list shows, and the text they came from (the
 * system's or an image library's), for a colleague or a bug report. Esc or Close returns focus
 * to the button that opened it.
 */
export function ProblemDialog(): React.JSX.Element | null {
  const item = useStore((s) => (s.problemItemId ? s.items[s.itemPos[s.problemItemId] ?? -1] : undefined))
  const close = (): void => useStore.getState().setProblem(null)
  const dialog = useRef<HTMLDivElement>(null)
  useReturnFocus(() => document.querySelector<HTMLElement>('[data-testid=item-list]'))
  useEffect(() => {
    dialog.current?.focus()
  }, [item?.id])
  if (!item?.error) return null
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <div
        className="card problem-dialog"
        role="dialog"
        aria-modal="true"
        aria-label={`Why ${item.name} failed`}
        tabIndex={-1}
        ref={dialog}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault()
            close()
          }
        }}
        data-testid="problem-dialog"
      >
        <div className="row">
          <h2 className="grow" style={{ margin: 0, overflowWrap: 'anywhere' }}>
            {item.name}
          </h2>
          <button type="button" className="btn" onClick={close}>
            Close
          </button>
        </div>
        <p className="field-error" style={{ margin: 0 }}>
          {item.error}
        </p>
        {item.error_detail && (
          <div className="stack" style={{ gap: 4 }}>
            <span className="muted small">What the system said</span>
            <pre className="code problem-detail" data-testid="problem-raw">
              {item.error_detail}
            </pre>
            <div>
              <CopyButton text={`${item.rel_path}: ${item.error}\n${item.error_detail}`} label="Copy" />
            </div>
          </div>
        )}
      </div>
    </div>
  )
}
