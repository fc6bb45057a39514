import { useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import type { BatchSummary } from '../../../shared/batches'
import { BeforeAfter } from '../components/BeforeAfter'
import { Empty, ErrorNote, ProgressBar } from '../components/common'
import { ItemList } from '../components/ItemList'
import { NewBatch } from '../components/NewBatch'
import { batchPace, formatDate, formatDuration } from '../lib/format'
import { useStore } from '../store'

function describeRequest(b: BatchSummary): string {
  const r = b.request
  const what = r.mode === 'params' ? `preset/params ${typeof r.params === 'string' ? r.params : 'set'}` : r.mode === 'clipping' ? 'cut out' : 'new background'
  return `${what} · ${r.output_format.toUpperCase()}`
}

/** Re-renders every second while `active`, for throughput and ETA. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!active) return
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [active])
  return active ? now : Date.now()
}

function History(): React.JSX.Element | null {
  const { batches, currentBatchId } = useStore(useShallow((s) => ({ batches: s.batches, currentBatchId: s.currentBatchId })))
  const { openBatch, removeBatch } = useStore.getState()
  if (batches.length === 0) return null
  return (
    <section className="card stack" aria-labelledby="history-title">
      <h2 id="history-title">Batches</h2>
      <div className="history">
        {batches.map((b) => {
          const pending = b.counts.waiting + b.counts.running
          return (
            <div key={b.id} className="row" style={{ flexWrap: 'nowrap' }}>
              <button type="button" className="grow" aria-current={b.id === currentBatchId} onClick={() => void openBatch(b.id)}>
                <div style={{ fontWeight: 600 }}>{b.name}</div>
                <div className="muted small">
                  {formatDate(b.created_at)} · {b.counts.done}/{b.counts.total} done{b.counts.failed ? ` · ${b.counts.failed} failed` : ''}
                  {pending ? (b.interrupted ? ' · interrupted' : ` · ${b.progress} %`) : ''}
                </div>
              </button>
              <button type="button" className="btn small" aria-label={`Remove ${b.name} from the list`} title="Remove from the list (files stay)" onClick={() => void removeBatch(b.id)}>
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
  const { batch, outputNotice, refused, batchError, canOpen, staged } = useStore(
    useShallow((s) => ({
      batch: s.batches.find((b) => b.id === s.currentBatchId) ?? null,
      outputNotice: s.outputNotice,
      refused: s.refused,
      batchError: s.batchError,
      canOpen: s.appInfo?.canOpenPath ?? false,
      staged: s.staged.length
    }))
  )
  const { cancelBatch, retryBatch, resumeBatch, openOutput, dismissBatchMessages } = useStore.getState()
  const pending = batch ? batch.counts.waiting + batch.counts.running : 0
  // An interrupted batch runs nothing until Resume: no pace or time left to show.
  const running = pending > 0 && !batch?.interrupted
  const now = useNow(running)

  if (!batch) {
    return (
      <section className="current card">
        <ErrorNote message={batchError} onDismiss={dismissBatchMessages} testId="batch-error" />
        <Empty title="No batch yet">
          <p>Drop photos or folders anywhere in this window, or use “Add files…”. {staged > 0 ? 'Then choose a preset and press Start.' : ''}</p>
          <p className="small">Results are written into the destination folder, mirroring the folders you dropped.</p>
        </Empty>
      </section>
    )
  }
  const c = batch.counts
  const ended = c.done + c.failed + c.cancelled
  const pace = batchPace(c, batch.started_at, batch.finished_at ?? now)
  return (
    <section className="current" aria-labelledby="current-title">
      <div className="card stack">
        <div className="row">
          <div className="grow">
            <h2 id="current-title" style={{ margin: 0 }}>
              {batch.name}
            </h2>
            <div className="muted small">
              {describeRequest(batch)} → <span className="mono">{batch.destination}</span>
            </div>
          </div>
          {batch.interrupted && (
            <button type="button" className="btn primary" onClick={() => void resumeBatch()} data-testid="resume-batch">
              Resume
            </button>
          )}
          {pending > 0 && (
            <button type="button" className="btn danger" onClick={() => void cancelBatch()}>
              Cancel batch
            </button>
          )}
          {c.failed + c.cancelled > 0 && (
            <button type="button" className="btn" onClick={() => void retryBatch()}>
              Retry failed ({c.failed + c.cancelled})
            </button>
          )}
          <button type="button" className="btn" onClick={() => void openOutput()} data-testid="open-output">
            {canOpen ? 'Open output folder' : 'Show output folder'}
          </button>
        </div>
        {batch.interrupted && (
          <div className="notice" role="status" data-testid="batch-interrupted">
            The app stopped while this batch was running. {pending} {pending === 1 ? 'file is' : 'files are'} left: Resume runs them; the{' '}
            {c.done} done {c.done === 1 ? 'stays' : 'stay'} as {c.done === 1 ? 'it is' : 'they are'}.
          </div>
        )}
        <ProgressBar value={batch.progress} label="Batch progress" testId="batch-progress" />
        <div className="stats" aria-live="polite">
          <span data-testid="batch-count">
            <b>{ended}</b> of <b>{c.total}</b> {pending === 0 ? 'finished' : 'files'} · <b data-testid="batch-percent">{batch.progress} %</b>
          </span>
          <span>
            <b>{c.done}</b> done
          </span>
          {c.running > 0 && (
            <span>
              <b>{c.running}</b> running
            </span>
          )}
          {c.waiting > 0 && (
            <span>
              <b>{c.waiting}</b> waiting
            </span>
          )}
          {c.failed > 0 && (
            <span className="field-error">
              <b>{c.failed}</b> failed
            </span>
          )}
          {c.cancelled > 0 && (
            <span>
              <b>{c.cancelled}</b> cancelled
            </span>
          )}
          {c.not_images > 0 && (
            <span data-testid="batch-not-images">
              <b>{c.not_images}</b> not {c.not_images === 1 ? 'an image' : 'images'}
            </span>
          )}
          {pace && (running || pending === 0) && (
            <span>
              <b>{pace.perMinute.toFixed(1)}</b> files/min
            </span>
          )}
          {pace && running && (
            <span>
              about <b>{formatDuration(pace.etaMs)}</b> left
            </span>
          )}
          {pending === 0 && batch.started_at && batch.finished_at && <span>took {formatDuration(batch.finished_at - batch.started_at)}</span>}
        </div>
        <ErrorNote message={batchError} onDismiss={dismissBatchMessages} testId="batch-error" />
        {outputNotice && (
          <div className="notice mono small" data-testid="output-notice">
            {outputNotice}
          </div>
        )}
        {refused.length > 0 && (
          <div className="error" role="alert">
            <div>
              {refused.length} {refused.length === 1 ? 'file was' : 'files were'} not added:
              <ul style={{ margin: '4px 0 0', paddingLeft: 18 }}>
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
      {c.total + c.not_images === 0 ? <Empty title="This batch has no files" /> : <ItemList />}
    </section>
  )
}

export default function Batches(): React.JSX.Element {
  const viewerItemId = useStore((s) => s.viewerItemId)
  return (
    <div className="batches">
      <div className="stack">
        <NewBatch />
        <History />
      </div>
      <CurrentBatch />
      {viewerItemId && <BeforeAfter key={viewerItemId} />}
    </div>
  )
}
