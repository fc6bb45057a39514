import { useStore } from '../../store'
import { CopyButton } from '../../components/common'
import { Modal } from '../../components/Modal'

const itemList = (): HTMLElement | null => document.querySelector<HTMLElement>('[data-testid=item-list]')

/**
 * One file's problem in full: the plain words the list shows, and the text they came from (the
 * system's or an image library's), for a colleague or a bug report. Esc or Close returns focus
 * to the button that opened it.
 */
export function ProblemDialog(): React.JSX.Element | null {
  const item = useStore((s) => (s.problemItemId ? s.items[s.itemPos[s.problemItemId] ?? -1] : undefined))
  const close = (): void => useStore.getState().setProblem(null)
  if (!item?.error) return null
  return (
    <Modal
      label={`Why ${item.name} failed`}
      title={item.name}
      actions={
        <button type="button" className="btn" onClick={close}>
          Close
        </button>
      }
      onClose={close}
      returnFocusTo={itemList}
      focusKey={item.id}
      className="problem-dialog"
      testId="problem-dialog"
    >
      <p className="field-error flush">{item.error}</p>
      {item.error_detail && (
        <div className="stack tight">
          <span className="muted small">What the system said</span>
          <pre className="code problem-detail" data-testid="problem-raw">
            {item.error_detail}
          </pre>
          <div>
            <CopyButton text={`${item.rel_path}: ${item.error}\n${item.error_detail}`} label="Copy" />
          </div>
        </div>
      )}
    </Modal>
  )
}
