import { useEffect, useMemo, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import type { PresetInfo } from '../../../../shared/presets'
import { Empty, ErrorNote } from '../../components/common'
import { useStore } from '../../store'
import { PresetEditor } from './PresetEditor'

/** One preset as a card: its name (any length, wrapped at word ends), what it is for, its short name, and Delete on its own line. */
function PresetCard(props: { preset: PresetInfo; selected: boolean; onOpen: () => void; onDelete: () => void }): React.JSX.Element {
  const p = props.preset
  return (
    <li className="preset-card" aria-current={props.selected} data-testid="preset-card" data-builtin={p.builtin}>
      <button type="button" className="open" onClick={props.onOpen} aria-label={`Open preset ${p.title}`}>
        <div className="title">{p.title}</div>
        {p.description && <div className="muted small about">{p.description}</div>}
      </button>
      <div className="foot">
        <span className="muted small mono slug" title={`Used as ${p.name} in clipdesk process --params and the API`}>
          {p.name}
        </span>
        {!p.builtin && (
          <button
            type="button"
            className="btn small danger"
            aria-label={`Delete preset ${p.title}`}
            onClick={props.onDelete}
            data-testid="delete-preset"
          >
            Delete
          </button>
        )}
      </div>
    </li>
  )
}

/** Presets: the user's and the built-in ones as cards, and the editor with its live preview. */
export default function Presets(): React.JSX.Element {
  const { presets, presetsError } = useStore(useShallow((s) => ({ presets: s.presets, presetsError: s.presetsError })))
  const [selected, setSelected] = useState<string | null>(null)
  const [creating, setCreating] = useState(false)
  const editing = useMemo(() => presets?.find((p) => p.name === selected) ?? null, [presets, selected])
  useEffect(() => {
    void useStore.getState().loadPresets()
  }, [])
  const user = (presets ?? []).filter((p) => !p.builtin)
  const builtin = (presets ?? []).filter((p) => p.builtin)

  const card = (p: PresetInfo): React.JSX.Element => (
    <PresetCard
      key={p.name}
      preset={p}
      selected={p.name === selected}
      onOpen={() => {
        setCreating(false)
        setSelected(p.name)
      }}
      onDelete={() => {
        if (window.confirm(`Delete the preset “${p.title}”?`)) {
          if (selected === p.name) setSelected(null)
          void useStore.getState().deletePreset(p.name)
        }
      }}
    />
  )

  return (
    <div className="stack">
      <div className="row">
        <h1 className="grow flush">Presets</h1>
        <button
          type="button"
          className="btn primary"
          onClick={() => {
            setSelected(null)
            setCreating(true)
          }}
          data-testid="new-preset"
        >
          New preset
        </button>
      </div>
      <ErrorNote message={presetsError} onDismiss={() => useStore.setState({ presetsError: null })} />
      <div className="presets-layout">
        <section className="card stack preset-list" aria-label="Presets" data-testid="preset-list">
          <h2 className="flush">Yours</h2>
          {presets === null ? (
            <span className="muted">Loading…</span>
          ) : user.length === 0 ? (
            <span className="muted small">No presets of your own yet. “New preset” makes one.</span>
          ) : (
            <ul className="cards" aria-label="Your presets">
              {user.map(card)}
            </ul>
          )}
          <h2 className="builtin-title">Built in</h2>
          <ul className="cards" aria-label="Built-in presets">
            {builtin.map(card)}
          </ul>
        </section>
        {creating || editing ? (
          <PresetEditor
            key={editing?.name ?? 'new'}
            editing={creating ? null : editing}
            onDone={(name) => {
              setCreating(false)
              setSelected(name)
            }}
          />
        ) : (
          <div className="card">
            <Empty title="Choose a preset or make a new one">
              <p>
                A preset is a named set of settings: background, shadow, crop, size, margin and more. Use it in a batch, a watched folder,
                `clipdesk process --params`, or as `params` in the API.
              </p>
            </Empty>
          </div>
        )}
      </div>
    </div>
  )
}
