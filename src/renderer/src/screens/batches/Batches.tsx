import { useShallow } from 'zustand/react/shallow'
import { batchOutcome } from '../../../../shared/batches'
import { BatchHeader } from './BatchHeader'
import { BeforeAfter } from './BeforeAfter'
import { Empty, ErrorNote } from '../../components/common'
import { ItemList } from './ItemList'
import { NewBatch } from './NewBatch'
import { ProblemDialog } from './ProblemDialog'
import { formatDate, stoppedTitle } from '../../lib/format'
import { useStore } from '../../store'
import { TouchUp } from '../../components/touchup/TouchUp'

function History(): React.JSX.Element | null {
  const { batches, currentBatchId, live } = useStore(
    useShallow((s) => ({ batches: s.batches, currentBatchId: s.currentBatchId, live: s.eventsLive }))
  )
  const { openBatch, removeBatch } = useStore.getState()
  if (batches.length === 0) return null
  return (
    <section className="card stack" aria-labelledby="history-title">
      <h2 id="history-title">Batches</h2>
      <div className="history">
        {batches.map((b) => {
          const outcome = batchOutcome(b)
          return (
            <div key={b.id} className="history-entry">
              <button type="button" className="open" aria-current={b.id === currentBatchId} onClick={() => void openBatch(b.id)}>
                <div className="name" title={b.name}>
                  {b.name}
                </div>
                <div className="muted small">
                  {formatDate(b.created_at)} ·{' '}
                  <span className="outcome small" data-kind={outcome.kind}>
                    {stoppedTitle(b.counts, b.counts.total, live) ?? outcome.title}
                  </span>
                </div>
              </button>
              <button
                type="button"
                className="btn small"
                aria-label={`Remove ${b.name} from the list`}
                title="Remove from the list (files stay)"
                onClick={() => void removeBatch(b.id)}
              >
                ×
              </button>
            </div>
          )
        })}
      </div>
    </section>
  )
}

function CurrentBatch(): React.JSX.Element {
  const { batch, outputNotice, refused, batchError, staged } = useStore(
    useShallow((s) => ({
      batch: s.batches.find((b) => b.id === s.currentBatchId) ?? null,
      outputNotice: s.outputNotice,
      refused: s.refused,
      batchError: s.batchError,
      staged: s.staged.length
    }))
  )
  const { dismissBatchMessages } = useStore.getState()

  if (!batch) {
    return (
      <section className="current card">
        <ErrorNote message={batchError} onDismiss={dismissBatchMessages} testId="batch-error" />
        <Empty title="No batch yet">
          <p>
            Drop photos or folders anywhere in this window, or use “Add files…”. {staged > 0 ? 'Then choose a preset and press Start.' : ''}
          </p>
          <p className="small">Results are written into the destination folder, mirroring the folders you dropped.</p>
        </Empty>
      </section>
    )
  }
  const c = batch.counts
  return (
    <section className="current" aria-labelledby="current-title">
      <div className="card stack">
        <BatchHeader batch={batch} />
        <ErrorNote message={batchError} onDismiss={dismissBatchMessages} testId="batch-error" />
        {outputNotice && (
          <div className="notice mono small wrap-anywhere" data-testid="output-notice">
            {outputNotice}
          </div>
        )}
        {refused.length > 0 && (
          <div className="error" role="alert">
            <div>
              {refused.length} {refused.length === 1 ? 'file was' : 'files were'} not added:
              <ul className="refused-list">
                {refused.slice(0, 5).map((r) => (
                  <li key={r.rel_path}>
                    {r.rel_path}: {r.error}
                  </li>
                ))}
                {refused.length > 5 && <li>and {refused.length - 5} more</li>}
              </ul>
            </div>
            <button type="button" className="btn small" onClick={dismissBatchMessages} aria-label="Dismiss">
              ×
            </button>
          </div>
        )}
      </div>
      {c.total + c.not_images === 0 && !batch.expected_files ? <Empty title="This batch has no files" /> : <ItemList />}
    </section>
  )
}

export default function Batches(): React.JSX.Element {
  const { viewerItemId, problemItemId, touchUpKey } = useStore(
    useShallow((s) => ({
      viewerItemId: s.viewerItemId,
      problemItemId: s.problemItemId,
      touchUpKey: s.touchUp?.target.kind === 'batch' ? s.touchUp.key : null
    }))
  )
  return (
    <div className="batches">
      <div className="stack shrink">
        <NewBatch />
        <History />
      </div>
      <CurrentBatch />
      {viewerItemId && <BeforeAfter key={viewerItemId} />}
      {problemItemId && <ProblemDialog key={problemItemId} />}
      {touchUpKey && <TouchUp key={touchUpKey} />}
    </div>
  )
}
