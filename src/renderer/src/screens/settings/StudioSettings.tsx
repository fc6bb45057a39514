import { useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { queueUrlProblem } from '../../../../shared/app'
import { ErrorNote } from '../../components/common'
import { useStore } from '../../store'

/** Settings: studio mode's queue address and whether this machine processes jobs too. */
export default function StudioSettings(): React.JSX.Element | null {
  const { view, error, server } = useStore(
    useShallow((s) => ({ view: s.settings, error: s.settingsError, server: s.appInfo?.host === 'server' }))
  )
  const [queueUrl, setQueueUrl] = useState('')
  const [localWorker, setLocalWorker] = useState(true)
  const [saved, setSaved] = useState(false)
  // The fields follow the saved values (not every change of the settings: an address being typed stays).
  const savedQueueUrl = view?.settings.queueUrl
  const savedLocalWorker = view?.settings.localWorker
  useEffect(() => {
    if (savedQueueUrl === undefined || savedLocalWorker === undefined) return
    setQueueUrl(savedQueueUrl)
    setLocalWorker(savedLocalWorker)
  }, [savedQueueUrl, savedLocalWorker])
  if (!view) return null
  const problem = queueUrlProblem(queueUrl.trim())
  const pending = view.restartNeeded.filter((k) => k === 'queueUrl' || k === 'localWorker')
  return (
    <form
      className="card stack"
      aria-labelledby="studio-title"
      onSubmit={(e) => {
        e.preventDefault()
        setSaved(false)
        if (problem) return
        void useStore.getState().saveSettings({ queueUrl: queueUrl.trim(), localWorker }).then(setSaved)
      }}
    >
      <h2 id="studio-title">Studio mode (shared queue)</h2>
      <label className="field">
        <span>Queue address — empty: the built-in queue of this machine</span>
        <input
          type="text"
          className="mono"
          value={queueUrl}
          placeholder="redis://queue-host:6379"
          onChange={(e) => {
            setQueueUrl(e.target.value)
            setSaved(false)
          }}
          aria-invalid={problem !== null || undefined}
          data-testid="queue-url"
        />
      </label>
      <ErrorNote message={problem && `Queue address: ${problem}.`} testId="queue-url-problem" />
      <label className="row">
        <input
          type="checkbox"
          checked={localWorker}
          onChange={(e) => setLocalWorker(e.target.checked)}
          disabled={queueUrl.trim() === ''}
          data-testid="local-worker"
        />
        Process jobs on this machine too (off: only workers on other machines run them)
      </label>
      <p className="muted small">
        Changes apply after a restart of {server ? 'clipdesk serve (its --queue and --no-local-worker options win over these)' : 'Clipdesk'}
        . Workers on other machines run <span className="mono">clipdesk worker --queue … --coordinator … --key &lt;worker key&gt;</span>
        (docs/studio.md).
      </p>
      {pending.length > 0 && (
        <div className="notice small" data-testid="studio-restart">
          Restart {server ? 'clipdesk serve' : 'Clipdesk'} to apply the queue settings.
        </div>
      )}
      <ErrorNote message={error} />
      <div className="row">
        <button type="submit" className="btn primary" disabled={problem !== null} data-testid="save-studio">
          Save
        </button>
        {saved && <span className="muted small">Saved.</span>}
      </div>
    </form>
  )
}
