import { useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { batchOutcome, type BatchOutcomeKind, type BatchSummary } from '../../../../shared/batches'
import { describeJob } from '../../../../shared/vocabulary'
import { batchPace, formatDuration, stoppedTitle } from '../../lib/format'
import { useStore } from '../../store'
import { downloadBatch } from '../../lib/results'
import { ProgressBar, type Tone } from '../../components/common'
import { MiddleEllipsis } from '../../components/MiddleEllipsis'

const TONE: Record<BatchOutcomeKind, Tone> = {
  empty: 'running',
  running: 'running',
  interrupted: 'stopped',
  done: 'done',
  'done-with-warnings': 'warn',
  'done-with-errors': 'warn',
  stopped: 'stopped',
  failed: 'failed'
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

function Stat(props: { n: number; label: string; className?: string; testId?: string }): React.JSX.Element | null {
  if (props.n === 0) return null
  return (
    <span className={props.className} data-testid={props.testId}>
      <b>{props.n}</b> {props.label}
    </span>
  )
}

/**
 * The current batch's head: its name on one line, what it does and where, how it stands in
 * words ("Stopped: 9 done, 35 not started", "Done with 2 errors") with a bar whose colour says
 * the same (green only when every file succeeded), the counts, the pace over the files that
 * ran, and the batch's actions.
 */
export function BatchHeader({ batch }: { batch: BatchSummary }): React.JSX.Element {
  const { canOpen, canDownload, presets, starting, live } = useStore(
    useShallow((s) => ({
      canOpen: s.appInfo?.canOpenPath ?? false,
      canDownload: s.appInfo?.canDownload ?? false,
      presets: s.presets,
      starting: s.starting,
      live: s.eventsLive
    }))
  )
  const { cancelBatch, retryBatch, resumeBatch, openOutput, setListView } = useStore.getState()
  const c = batch.counts
  const pending = c.waiting + c.running
  // An interrupted batch runs nothing until Resume, and nothing is known to run while the
  // server cannot be reached: no pace or time left to show.
  const running = pending > 0 && !batch.interrupted && live
  const now = useNow(running)
  const outcome = batchOutcome(batch)
  const pace = batchPace(c, batch.started_at, batch.finished_at ?? now)
  const title = (name: string): string => presets?.find((p) => p.name === name)?.title ?? name
  const cutShort = c.cancelled - c.not_started
  // The total announced when the batch started (it does not grow while files are still sent).
  const total = Math.max(c.total, pending > 0 || starting ? (batch.expected_files ?? 0) : 0)

  return (
    <div className="batch-head stack">
      <div className="batch-head-grid">
        <div className="batch-what">
          <h2 id="current-title" className="batch-title" title={batch.name} data-testid="batch-title">
            {batch.name}
          </h2>
          <div className="muted small batch-settings" data-testid="batch-settings">
            <span>{describeJob(batch.request, title)} →</span>
            <MiddleEllipsis className="mono" text={batch.destination} folder testId="batch-destination-line" />
          </div>
        </div>
        <div className="batch-actions">
          {batch.interrupted && (
            <button type="button" className="btn primary" onClick={() => void resumeBatch()} data-testid="resume-batch">
              Resume
            </button>
          )}
          {pending > 0 && (
            <button type="button" className="btn danger" onClick={() => void cancelBatch()} data-testid="cancel-batch">
              Cancel batch
            </button>
          )}
          {c.failed + c.cancelled > 0 && pending === 0 && (
            <button type="button" className="btn" onClick={() => void retryBatch()} data-testid="retry-batch">
              Retry {c.failed > 0 && c.cancelled > 0 ? 'the rest' : c.failed > 0 ? 'failed' : 'stopped'} ({c.failed + c.cancelled})
            </button>
          )}
          {canDownload && c.done > 0 && (
            <button type="button" className="btn" onClick={() => void downloadBatch(batch.id)} data-testid="download-batch">
              Download all (zip)
            </button>
          )}
          <button type="button" className="btn" onClick={() => void openOutput()} data-testid="open-output">
            {canOpen ? 'Open output folder' : 'Show output folder'}
          </button>
        </div>
      </div>
      {batch.interrupted && (
        <div className="notice" role="status" data-testid="batch-interrupted">
          The app stopped while this batch was running. {pending} {pending === 1 ? 'file is' : 'files are'} left: Resume runs them; the{' '}
          {c.done} done {c.done === 1 ? 'stays' : 'stay'} as {c.done === 1 ? 'it is' : 'they are'}.
        </div>
      )}
      <div className="outcome" data-kind={outcome.kind} data-testid="batch-outcome" aria-live="polite">
        {stoppedTitle(c, total, live) ?? outcome.title}
      </div>
      <ProgressBar value={outcome.bar} label="Batch progress" testId="batch-progress" tone={TONE[outcome.kind]} />
      <div className="stats" data-testid="batch-count">
        <span>
          <b>{c.done}</b> of <b>{total}</b> done
        </span>
        <Stat n={c.running} label="running" />
        <Stat n={c.waiting} label="waiting" />
        <Stat n={c.failed} label="failed" className="field-error" />
        <Stat n={cutShort} label="stopped while running" testId="batch-stopped" />
        <Stat n={c.not_started} label="not started" testId="batch-not-started" />
        <Stat n={c.not_images} label={c.not_images === 1 ? 'not an image' : 'not images'} testId="batch-not-images" />
        {c.to_check > 0 && (
          <button
            type="button"
            className="link warn"
            onClick={() => setListView({ filter: 'to-check', sort: 'uncertainty' })}
            title="Cutouts the model is unsure of: show them, most uncertain first"
            data-testid="batch-to-check"
          >
            <b>{c.to_check}</b> to check{c.likely_wrong > 0 ? ` (${c.likely_wrong} likely wrong)` : ''}
          </button>
        )}
        {c.touched_up > 0 && (
          <button
            type="button"
            className="link"
            onClick={() => setListView({ filter: 'touched-up' })}
            title="Files touched up and saved: show them"
            data-testid="batch-touched-up"
          >
            <b>{c.touched_up}</b> touched up
          </button>
        )}
        {pace && (running || pending === 0) && (
          <span title="Over the files that ran (done or failed), not those stopped or not started">
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
    </div>
  )
}
