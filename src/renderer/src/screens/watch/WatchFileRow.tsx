import { isToCheck } from '../../../../shared/review'
import { TO_CHECK_LABEL } from '../../../../shared/vocabulary'
import type { WatchFileView } from '../../../../shared/watch'
import { useStore } from '../../store'

/**
 * One done file of a watched folder in its lists (to check, latest done): the To check badge
 * when the model is unsure of its cutout, how often it was touched up, and Touch up, which opens
 * the same editor as a batch's file (docs/review.md "Touch-up").
 */
export function WatchFileRow(props: { file: WatchFileView }): React.JSX.Element {
  const file = props.file
  const open = (): void => void useStore.getState().openTouchUp({ kind: 'watch', folder_id: file.folder_id, file_id: file.id }, file.rel_path)
  return (
    <li className="row small" style={{ flexWrap: 'nowrap', gap: 8 }} data-testid="watch-file">
      {isToCheck(file.uncertainty) && (
        <span className="badge warn" title={`Uncertainty ${file.uncertainty?.toFixed(3)} (0 sure, 1 check this)`}>
          {TO_CHECK_LABEL}
        </span>
      )}
      <span className="mono grow" style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }} title={file.outputs.join('\n')}>
        {file.rel_path}
      </span>
      {file.touch_ups > 0 && (
        <span className="muted" style={{ whiteSpace: 'nowrap' }} data-testid="watch-touched-up">
          touched up{file.touch_ups > 1 ? ` ×${file.touch_ups}` : ''}
        </span>
      )}
      <button type="button" className="btn small" onClick={open} aria-label={`Touch up ${file.rel_path}`} data-testid="watch-touch-up">
        Touch up
      </button>
    </li>
  )
}
