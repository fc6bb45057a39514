import type { WatchFileView } from '../../../../shared/watch'
import { ReviewBadge } from '../../components/ReviewBadge'
import { useStore } from '../../store'

/**
 * One done file of a watched folder in its lists (to check, latest done): its review badge
 * ("Likely wrong 0.99", "Worth a look 0.62", "Touched up", as a batch's row shows it), and Touch
 * up, which opens the same editor as a batch's file (docs/touch-up.md "Touch-up").
 */
export function WatchFileRow(props: { file: WatchFileView }): React.JSX.Element {
  const file = props.file
  const open = (): void =>
    void useStore.getState().openTouchUp({ kind: 'watch', folder_id: file.folder_id, file_id: file.id }, file.rel_path)
  return (
    <li className="row small nowrap" data-testid="watch-file">
      <ReviewBadge uncertainty={file.uncertainty} touchUps={file.touch_ups} />
      <span className="mono grow ellipsis" title={file.outputs.join('\n')}>
        {file.rel_path}
      </span>
      <button type="button" className="btn small" onClick={open} aria-label={`Touch up ${file.rel_path}`} data-testid="watch-touch-up">
        Touch up
      </button>
    </li>
  )
}
