import { useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import type { WorkerInfo } from '../../../../shared/studio'
import { ErrorNote } from '../../components/common'
import { formatDate } from '../../lib/format'
import { useStore } from '../../store'

/** Workers say hello every 15 s even when idle: one silent for longer has stopped or lost its way. */
const GONE_AFTER_MS = 60_000

/** "12 s ago" for recent times (the list is pushed live; this ticks between pushes). */
function ago(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000))
  if (s < 60) return `${s} s ago`
  if (s < 3600) return `${Math.floor(s / 60)} min ago`
  return formatDate(ms)
}

function WorkerRow({ w, now }: { w: WorkerInfo; now: number }): React.JSX.Element {
  return (
    <tr data-testid="worker-row" data-worker={w.name}>
      <td className="mono">
        {w.name}{' '}
        {now - w.last_seen < GONE_AFTER_MS ? (
          <span className="badge done">connected</span>
        ) : (
          <span className="badge cancelled">not seen lately</span>
        )}
      </td>
      <td>{w.device}</td>
      <td data-testid="worker-jobs">{w.jobs_done}</td>
      <td>{w.jobs_per_hour === null ? '—' : `${w.jobs_per_hour} jobs/h`}</td>
      <td className="small" title={formatDate(w.last_seen)}>
        {ago(w.last_seen, now)}
      </td>
    </tr>
  )
}

/** Studio mode on the API screen: the shared queue and the workers taking its jobs, live. */
export default function Workers(): React.JSX.Element {
  const { studio, error } = useStore(useShallow((s) => ({ studio: s.studio, error: s.studioError })))
  const [now, setNow] = useState(Date.now())
  useEffect(() => {
    void useStore.getState().loadStudio()
    const timer = setInterval(() => setNow(Date.now()), 5000)
    return () => clearInterval(timer)
  }, [])
  return (
    <section className="card stack" aria-labelledby="workers-title" data-testid="workers">
      <h2 id="workers-title">Studio workers</h2>
      <ErrorNote message={error} />
      {studio === null ? (
        <span className="muted">Loading…</span>
      ) : !studio.enabled ? (
        <p className="muted small">
          Jobs run on this machine only. To share them with other machines, set a queue address in Settings (studio mode, docs/studio.md).
        </p>
      ) : (
        <>
          <div className="small" data-testid="queue-status">
            Queue <span className="mono">{studio.queue}</span>:{' '}
            {studio.queue_available ? <span className="badge done">reachable</span> : <span className="badge failed">unreachable</span>}
          </div>
          {studio.workers.length === 0 ? (
            <p className="muted small">
              No worker has connected yet. Start one with clipdesk worker --queue … --coordinator … --key &lt;worker key&gt;.
            </p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th>Worker (host)</th>
                  <th>Device</th>
                  <th>Jobs done</th>
                  <th>Throughput</th>
                  <th>Last seen</th>
                </tr>
              </thead>
              <tbody>
                {studio.workers.map((w) => (
                  <WorkerRow key={w.name} w={w} now={now} />
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  )
}
