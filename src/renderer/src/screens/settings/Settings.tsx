import { useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import type { AppSettings } from '../../../../shared/app'
import { ErrorNote } from '../../components/common'
import { FolderField } from '../../components/FolderField'
import { useStore } from '../../store'
import ModelsSection from './ModelsSection'
import StudioSettings from './StudioSettings'
import type { Theme } from '../../store/types'

type Draft = Pick<AppSettings, 'outputDir' | 'dataDir'> & { concurrency: string; retentionHours: string }

export default function Settings(): React.JSX.Element {
  const { view, error, theme, info } = useStore(
    useShallow((s) => ({ view: s.settings, error: s.settingsError, theme: s.theme, info: s.appInfo }))
  )
  const [draft, setDraft] = useState<Draft | null>(null)
  const [saved, setSaved] = useState(false)
  useEffect(() => {
    void useStore.getState().loadSettings()
  }, [])
  useEffect(() => {
    if (view) {
      const s = view.settings
      setDraft({
        outputDir: s.outputDir,
        dataDir: s.dataDir,
        concurrency: s.concurrency === null ? '' : String(s.concurrency),
        retentionHours: String(s.retentionHours)
      })
    }
  }, [view])
  const server = info?.host === 'server'
  // The queue settings have their own section, which says when they need a restart.
  const engineRestart = view?.restartNeeded.filter((k) => k !== 'queueUrl' && k !== 'localWorker') ?? []
  // Empty: as many as the machine's cores make worthwhile (the engine chooses).
  const concurrency = draft?.concurrency.trim() ? Number(draft.concurrency) : null
  const concurrencyOk = concurrency === null || (Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 16)
  const retention = Number(draft?.retentionHours)
  const valid = draft !== null && concurrencyOk && retention >= 1 && retention <= 8760

  return (
    <div className="stack settings-screen">
      <h1>Settings</h1>
      <section className="card stack" aria-labelledby="look-title">
        <h2 id="look-title">Appearance</h2>
        <label className="field theme-field">
          <span>Theme</span>
          <select value={theme} onChange={(e) => useStore.getState().setTheme(e.target.value as Theme)} data-testid="theme">
            <option value="system">Like the system</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
      </section>
      {draft && view && (
        <form
          className="card stack"
          aria-labelledby="engine-title"
          onSubmit={(e) => {
            e.preventDefault()
            if (!valid) return
            setSaved(false)
            void useStore
              .getState()
              .saveSettings({ outputDir: draft.outputDir.trim(), dataDir: draft.dataDir.trim(), concurrency, retentionHours: retention })
              .then(setSaved)
          }}
        >
          <h2 id="engine-title">Folders and engine</h2>
          <FolderField
            label="Default destination of new batches"
            value={draft.outputDir}
            placeholder={view.effective.outputDir}
            onChange={(outputDir) => setDraft({ ...draft, outputDir })}
          />
          <FolderField
            label={<>Data folder (jobs, keys, uploads){server ? ' — set by clipdesk serve --data-dir' : ''}</>}
            value={draft.dataDir}
            placeholder={view.effective.dataDir}
            disabled={server}
            onChange={(dataDir) => setDraft({ ...draft, dataDir })}
          />
          <div className="row">
            <label className="field">
              <span>Jobs at once</span>
              <input
                type="number"
                min={1}
                max={16}
                value={draft.concurrency}
                placeholder={`automatic (${view.effective.concurrency})`}
                onChange={(e) => setDraft({ ...draft, concurrency: e.target.value })}
                aria-invalid={!concurrencyOk || undefined}
              />
            </label>
            <label className="field">
              <span>Keep results and uploads (hours)</span>
              <input
                type="number"
                min={1}
                max={8760}
                value={draft.retentionHours}
                onChange={(e) => setDraft({ ...draft, retentionHours: e.target.value })}
                aria-invalid={!(retention >= 1 && retention <= 8760) || undefined}
              />
            </label>
          </div>
          {engineRestart.length > 0 && (
            <div className="notice small">
              Restart {server ? 'clipdesk serve' : 'Clipdesk'} to apply: {engineRestart.join(', ')}.
            </div>
          )}
          <ErrorNote message={error} />
          <div className="row">
            <button type="submit" className="btn primary" disabled={!valid}>
              Save
            </button>
            {saved && <span className="muted small">Saved.</span>}
          </div>
          <p className="muted small">
            Files written into a batch's destination stay there; results inside the data folder are removed after the retention time.
          </p>
        </form>
      )}
      <StudioSettings />
      <ModelsSection />
    </div>
  )
}
