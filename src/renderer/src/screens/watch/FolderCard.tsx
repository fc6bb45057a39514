import { describeJob, TO_CHECK_LABEL } from '../../../../shared/vocabulary'
import type { WatchActivity, WatchFolderState, WatchFolderView } from '../../../../shared/watch'
import { formatDate } from '../../lib/format'
import { useStore } from '../../store'
import { WatchFileRow } from './WatchFileRow'

const STATE_TEXT: Record<WatchFolderState, string> = {
  active: 'Watching',
  paused: 'Paused',
  unavailable: 'Unavailable',
  stopped: 'Not running'
}

const STATE_CLASS: Record<WatchFolderState, string> = {
  active: 'done',
  paused: 'cancelled',
  unavailable: 'failed',
  stopped: 'cancelled'
}

const ACTIVITY_CLASS: Record<WatchActivity['kind'], string> = {
  done: 'done',
  failed: 'failed',
  skipped: 'cancelled',
  retried: '',
  error: 'failed',
  note: '',
  touched_up: 'done'
}

const ACTIVITY_TEXT: Record<WatchActivity['kind'], string> = {
  done: 'done',
  failed: 'failed',
  skipped: 'skipped',
  retried: 'retried',
  error: 'error',
  note: 'waiting',
  touched_up: 'touched up'
}

/** One watched folder: state, counts, settings, actions, failed files with retry, files to check and the latest done (to touch up), recent activity. */
export function FolderCard(props: { folder: WatchFolderView; onEdit: () => void }): React.JSX.Element {
  const f = props.folder
  const s = useStore.getState
  const presets = useStore((st) => st.presets)
  const c = f.counts
  const title = (name: string): string => presets?.find((p) => p.name === name)?.title ?? name
  return (
    <section className="card stack" aria-label={`Watched folder ${f.path}`} data-testid={`watch-folder-${f.id}`}>
      <div className="row nowrap align-start">
        <div className="grow stack tight">
          <div className="row">
            <span className={`badge ${STATE_CLASS[f.state]}`} data-testid="watch-state">
              {STATE_TEXT[f.state]}
            </span>
            <strong className="mono ellipsis" title={f.path}>
              {f.path}
            </strong>
          </div>
          {f.state_message && <span className="muted small">{f.state_message}</span>}
          <span className="muted small">
            {describeJob(f.request, title)} · {f.recursive ? 'with sub-folders' : 'top level only'} · originals{' '}
            {f.originals === 'move' ? 'moved to clipdesk-done' : 'kept'}
          </span>
          <span className="muted small mono" title={`${f.output_dir}/${f.name_template}`}>
            → {f.output_dir}/{f.name_template}
          </span>
        </div>
        <div className="row nowrap">
          <button type="button" className="btn small" onClick={() => void s().setWatchPaused(f.id, !f.paused)} data-testid="watch-toggle">
            {f.paused ? 'Resume' : 'Pause'}
          </button>
          <button type="button" className="btn small" onClick={props.onEdit}>
            Edit
          </button>
          <button
            type="button"
            className="btn small danger"
            onClick={() => {
              if (window.confirm(`Stop watching ${f.path}? Files already written stay where they are.`)) void s().removeWatch(f.id)
            }}
          >
            Remove
          </button>
        </div>
      </div>

      <div className="stats" data-testid="watch-counts">
        <span>
          Waiting <b>{c.waiting}</b>
        </span>
        <span>
          Processing <b>{c.processing}</b>
        </span>
        <span>
          Done <b>{c.done}</b>
        </span>
        {c.skipped > 0 && (
          <span title="Same content as a file already processed with these settings">
            Skipped <b>{c.skipped}</b>
          </span>
        )}
        <span className={c.failed > 0 ? 'warn' : undefined}>
          Failed <b>{c.failed}</b>
        </span>
        {c.to_check > 0 && (
          <span
            className="warn"
            title="Done files whose cutout the model is unsure of: look at them first"
            data-testid="watch-to-check-count"
          >
            {TO_CHECK_LABEL} <b>{c.to_check}</b>
            {c.likely_wrong > 0 ? ` (${c.likely_wrong} likely wrong)` : ''}
          </span>
        )}
        {c.touched_up > 0 && (
          <span title="Done files touched up and saved: no longer to check" data-testid="watch-touched-up-count">
            Touched up <b>{c.touched_up}</b>
          </span>
        )}
      </div>

      {f.failed.length > 0 && (
        <div className="stack gap-6">
          <div className="row">
            <strong className="grow">Failed files</strong>
            <button type="button" className="btn small" onClick={() => void s().retryWatch(f.id)} data-testid="watch-retry-all">
              Retry all ({f.failed.length})
            </button>
          </div>
          <ul className="stack tight bare-list" aria-label="Failed files">
            {f.failed.map((file) => (
              <li key={file.id} className="row nowrap">
                <div className="grow shrink">
                  <div className="mono small">{file.rel_path}</div>
                  <div className="field-error" data-testid="watch-file-error">
                    {file.error ? file.error.message : 'failed'}
                  </div>
                  {file.error?.detail && (
                    <details className="problem-detail">
                      <summary>Details</summary>
                      <pre>{file.error.detail}</pre>
                    </details>
                  )}
                </div>
                <button
                  type="button"
                  className="btn small"
                  onClick={() => void s().retryWatch(f.id, file.id)}
                  aria-label={`Retry ${file.rel_path}`}
                >
                  Retry
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}

      {f.to_check.length > 0 && (
        <details data-testid="watch-to-check">
          <summary className="small">
            {TO_CHECK_LABEL} ({f.to_check.length}), most uncertain first
          </summary>
          <ul className="stack plain-list" aria-label="Files to check">
            {f.to_check.map((file) => (
              <WatchFileRow key={file.id} file={file} />
            ))}
          </ul>
        </details>
      )}

      {f.done.length > 0 && (
        <details data-testid="watch-done">
          <summary className="small">
            Done files ({f.done.length < c.done ? `latest ${f.done.length} of ${c.done}` : f.done.length}), to touch up
          </summary>
          <ul className="stack plain-list" aria-label="Done files">
            {f.done.map((file) => (
              <WatchFileRow key={file.id} file={file} />
            ))}
          </ul>
        </details>
      )}

      <details>
        <summary className="small">Recent activity {f.recent.length > 0 ? `(${f.recent.length})` : ''}</summary>
        {f.recent.length === 0 ? (
          <p className="muted small">Nothing yet. New photos in the folder are cut out as soon as they are completely written.</p>
        ) : (
          <ul className="stack plain-list" data-testid="watch-recent">
            {f.recent.map((a) => (
              <li key={a.id} className="row small nowrap">
                <span className="muted no-break">{formatDate(a.at)}</span>
                <span className={`badge ${ACTIVITY_CLASS[a.kind]}`}>{ACTIVITY_TEXT[a.kind]}</span>
                <span className="mono grow ellipsis" title={`${a.rel_path ?? ''} ${a.message}`}>
                  {a.rel_path ? `${a.rel_path} ` : ''}
                  <span className="muted">{a.message}</span>
                </span>
              </li>
            ))}
          </ul>
        )}
      </details>
    </section>
  )
}
