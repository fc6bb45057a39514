import { type ReactNode, useEffect, useRef } from 'react'
import { listenOnWindow } from '../lib/window-events'

/**
 * The one dialog over the screen: a backdrop, `role="dialog"` + `aria-modal`, a title row (the
 * title, then `actions`), focus moved into the dialog when it opens (and again when `focusKey`
 * changes: another file shown in the same dialog) and given back on close to what had it before
 * (the button that opened it), or to `returnFocusTo` when that element is gone. Esc closes; it
 * is listened for on the window so that it still works when a button the user pressed became
 * disabled and dropped the focus to the page.
 */
export function Modal(props: {
  /** The accessible name; the visible title is `title`. */
  label: string
  title: ReactNode
  actions?: ReactNode
  onClose: () => void
  /** Off where a stray click must not throw work away (the touch-up editor). */
  closeOnBackdrop?: boolean
  returnFocusTo?: () => HTMLElement | null
  focusKey?: unknown
  className?: string
  testId?: string
  onKeyDown?: (e: React.KeyboardEvent) => void
  children?: ReactNode
}): React.JSX.Element {
  const dialog = useRef<HTMLDivElement>(null)
  const latest = useRef(props)
  latest.current = props
  useReturnFocus(() => latest.current.returnFocusTo?.() ?? null)

  // biome-ignore lint/correctness/useExhaustiveDependencies: focusKey is the trigger: another file shown in the same dialog moves the focus into it again
  useEffect(() => {
    dialog.current?.focus()
  }, [props.focusKey])

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key !== 'Escape' || e.defaultPrevented) return
      e.preventDefault()
      latest.current.onClose()
    }
    return listenOnWindow({ keydown: onKey })
  }, [])

  const closeOnBackdrop = props.closeOnBackdrop ?? true
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a press on the backdrop is a pointer shortcut; Esc and the dialog's own buttons close it from the keyboard
    <div className="modal-backdrop" onMouseDown={(e) => closeOnBackdrop && e.target === e.currentTarget && props.onClose()}>
      <div
        className={`card modal${props.className ? ` ${props.className}` : ''}`}
        role="dialog"
        aria-modal="true"
        aria-label={props.label}
        tabIndex={-1}
        ref={dialog}
        onKeyDown={props.onKeyDown}
        data-testid={props.testId}
      >
        <div className="row">
          <h2 className="grow modal-title">{props.title}</h2>
          {props.actions}
        </div>
        {props.children}
      </div>
    </div>
  )
}

/**
 * Gives focus back, when the dialog using it closes, to what had it when the dialog opened
 * (the button that opened it), or to `fallback` when that element is gone: Esc never leaves
 * the keyboard at the top of the page.
 */
function useReturnFocus(fallback: () => HTMLElement | null): void {
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per dialog: the opener is what had the focus when it opened; `fallback` is only called at close, and Modal's reads the latest props
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    return () => {
      const target = opener?.isConnected ? opener : fallback()
      // After the dialog is gone from the page (this runs while it is being removed).
      setTimeout(() => target?.focus(), 0)
    }
  }, [])
}
