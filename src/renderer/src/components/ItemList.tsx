import { memo, useRef } from 'react'
import type { BatchItemView } from '../../../shared/batches'
import { ranOnText } from '../lib/format'
import { useWindowedRows } from '../lib/virtual'
import { useStore } from '../store'
import { ProgressBar } from './common'

const ROW_HEIGHT = 64

const STATUS_TEXT: Record<BatchItemView['status'], string> = {
  waiting: 'Waiting',
  queued: 'Queued',
  fetching: 'Fetching',
  segmenting: 'Cutting out',
  pending_compose: 'Composing',
  encoding: 'Writing',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled'
}

const Row = memo(function Row({ index }: { index: number }): React.JSX.Element | null {
  const item = useStore((s) => s.items[index])
  if (!item) return null
  const { setViewer, cancelBatch, retryBatch, openOutput } = useStore.getState()
  const folder = item.rel_path.includes('/') ? item.rel_path.slice(0, item.rel_path.lastIndexOf('/')) : ''
  const problem = item.error ?? (item.warnings.length > 0 ? item.warnings.join('\n') : null)
  // What made a done result, e.g. "medium · cpu" (the device after any fallback, whose reason is a warning).
  const ranOn = item.state === 'done' ? ranOnText(item) : null
  return (
    <div className="vrow" role="row" style={{ top: index * ROW_HEIGHT, height: ROW_HEIGHT }} data-testid="batch-item" data-state={item.not_image ? 'not-image' : item.state}>
      <img className="thumb" src={item.thumb_url} alt="" loading="lazy" decoding="async" onError={(e) => (e.currentTarget.style.visibility = 'hidden')} />
      <div role="cell" className="name" title={item.rel_path}>
        <div className="name">{item.name}</div>
        <div className="muted small name">
          {folder && (
            <span>
              {folder}
              {problem || item.state === 'done' ? ' · ' : ''}
            </span>
          )}
          {problem ? (
            <span className={item.error ? 'field-error' : 'warn'} title={problem}>
              {item.error ? item.error : `⚠ ${item.warnings.length} warning${item.warnings.length > 1 ? 's' : ''}: ${item.warnings[0]}`}
            </span>
          ) : (
            item.state === 'done' && <span>{item.outputs.length} file{item.outputs.length === 1 ? '' : 's'} written</span>
          )}
        </div>
      </div>
      <div role="cell">
        <span className={`badge ${item.state}`}>{item.not_image ? 'Not an image' : STATUS_TEXT[item.status]}</span>
        {/* Under the status, so that a warning on the name's line (e.g. why the GPU was not used) keeps its room. */}
        {ranOn && (
          <div className="muted small ran-on" data-testid="item-device" title={`The model and the device that ran it: ${ranOn}`}>
            {ranOn}
          </div>
        )}
      </div>
      <div role="cell">
        <ProgressBar value={item.progress} label={`Progress of ${item.name}`} thin />
      </div>
      <div role="cell" className="row" style={{ flexWrap: 'nowrap' }}>
        {item.state === 'done' && (
          <button type="button" className="btn small" onClick={() => setViewer(item.id)} aria-label={`Before and after of ${item.name}`} data-testid="open-viewer">
            Before/after
          </button>
        )}
        {item.state === 'done' && (
          <button type="button" className="btn small" onClick={() => void openOutput(item.id)} aria-label={`Open the folder of ${item.name}`}>
            Folder
          </button>
        )}
        {item.state === 'pending' && (
          <button type="button" className="btn small" onClick={() => void cancelBatch(item.id)} aria-label={`Cancel ${item.name}`}>
            Cancel
          </button>
        )}
        {(item.state === 'failed' || item.state === 'cancelled') && !item.not_image && (
          <button type="button" className="btn small" onClick={() => void retryBatch(item.id)} aria-label={`Retry ${item.name}`}>
            Retry
          </button>
        )}
      </div>
    </div>
  )
})

/** The files of the current batch: a windowed list, so thousands of rows stay light. */
export function ItemList(): React.JSX.Element {
  const count = useStore((s) => s.items.length)
  const ref = useRef<HTMLDivElement>(null)
  const { start, end } = useWindowedRows(ref, ROW_HEIGHT, count)
  const rows: React.JSX.Element[] = []
  for (let i = start; i < end; i++) rows.push(<Row key={i} index={i} />)
  return (
    <div className="vlist" ref={ref} role="table" aria-label="Files of the batch" aria-rowcount={count} tabIndex={0} data-testid="item-list">
      <div style={{ height: count * ROW_HEIGHT, position: 'relative' }}>{rows}</div>
    </div>
  )
}
