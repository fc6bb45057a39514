import { useEffect, useMemo, useRef, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { VARIATIONS, type Variation } from '../../../shared/api'
import { PRESET_NAME_PATTERN } from '../../../shared/params'
import type { PresetInfo } from '../../../shared/presets'
import { Empty, ErrorNote, ProgressBar } from '../components/common'
import { checkForm, EMPTY_FORM, formFromValues, paramsOfForm, type PresetForm } from '../lib/presetForm'
import { sampleImage } from '../lib/sample'
import { useStore } from '../store'
import { AppError, errorText } from '../transport'

const PREVIEW_DELAY_MS = 900

function Select<K extends keyof PresetForm>(props: {
  form: PresetForm
  set: (patch: Partial<PresetForm>) => void
  k: K
  label: string
  options: Array<[string, string]>
  error?: string
}): React.JSX.Element {
  return (
    <label className="field">
      <span>{props.label}</span>
      <select
        value={String(props.form[props.k])}
        aria-invalid={props.error ? true : undefined}
        data-testid={`param-${String(props.k)}`}
        onChange={(e) => props.set({ [props.k]: e.target.value } as Partial<PresetForm>)}>
        <option value="">Default</option>
        {props.options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
      {props.error && <span className="field-error">{props.error}</span>}
    </label>
  )
}

function PresetEditor(props: { editing: PresetInfo | null; onDone: (name: string | null) => void }): React.JSX.Element {
  const { editing } = props
  const [form, setForm] = useState<PresetForm>(() => (editing ? formFromValues(editing.name, editing.description, editing.values) : EMPTY_FORM))
  const [saveError, setSaveError] = useState<string | null>(null)
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({})
  const [saving, setSaving] = useState(false)
  const [sample, setSample] = useState<Blob | null>(null)
  const preview = useStore((s) => s.preview)
  const set = (patch: Partial<PresetForm>): void => {
    setForm((f) => ({ ...f, ...patch }))
    setServerErrors({})
  }
  const params = paramsOfForm(form)
  const errors = { ...checkForm(form), ...serverErrors }
  const nameError = form.name && !PRESET_NAME_PATTERN.test(form.name) ? 'a-z, 0-9, "_" and "-", starting with a letter or digit (up to 64)' : errors.name
  const [copied, setCopied] = useState(false)
  const readOnly = editing?.builtin === true && !copied
  const valid = Object.keys(checkForm(form)).length === 0

  // Live preview: a real job on the sample image, a moment after the last change.
  const sampleRef = useRef<Blob | null>(null)
  useEffect(() => {
    if (!valid || params === '') return
    const timer = setTimeout(() => {
      void (async () => {
        sampleRef.current ??= await sampleImage()
        await useStore.getState().runPreview(params, sample ?? sampleRef.current)
      })()
    }, PREVIEW_DELAY_MS)
    return () => clearTimeout(timer)
  }, [params, valid, sample])

  const save = async (): Promise<void> => {
    setSaving(true)
    setSaveError(null)
    try {
      await useStore.getState().savePreset({ name: form.name.trim(), params, description: form.description.trim() || null })
      props.onDone(form.name.trim())
    } catch (err) {
      if (err instanceof AppError && err.details.length > 0) {
        setServerErrors(Object.fromEntries(err.details.map((d) => [d.field.replace(/^params\.?/, '') || 'params', d.issue])))
      }
      setSaveError(errorText(err))
    } finally {
      setSaving(false)
    }
  }

  return (
    <form
      className="card stack"
      aria-label={editing ? `Edit preset ${editing.name}` : 'New preset'}
      onSubmit={(e) => {
        e.preventDefault()
        if (!readOnly) void save()
      }}
    >
      <div className="row">
        <h2 className="grow" style={{ margin: 0 }}>
          {readOnly ? `${editing!.name} (built in)` : editing && !copied ? `Edit ${editing.name}` : 'New preset'}
        </h2>
        <button type="button" className="btn" onClick={() => props.onDone(null)}>
          Close
        </button>
      </div>
      {readOnly && <div className="notice small">Built-in presets cannot be changed. Save a copy under another name to adjust it.</div>}
      <div className="form-grid">
        <label className="field">
          <span>Name</span>
          <input
            type="text"
            value={form.name}
            onChange={(e) => set({ name: e.target.value })}
            placeholder="e.g. shop-white"
            aria-invalid={nameError ? true : undefined}
            required
            disabled={readOnly}
            data-testid="preset-name"
          />
          {nameError && <span className="field-error">{nameError}</span>}
        </label>
        <label className="field" style={{ gridColumn: 'span 2' }}>
          <span>Description</span>
          <input type="text" value={form.description} onChange={(e) => set({ description: e.target.value })} placeholder="What it is for" disabled={readOnly} />
        </label>
      </div>
      <fieldset className="form-grid" style={{ border: 0, padding: 0, margin: 0 }} disabled={readOnly}>
        <legend className="sr-only">Parameters</legend>
        <Select form={form} set={set} k="background" label="Background" error={errors.background} options={[['transparent', 'Transparent'], ['color', 'Colour'], ['blur', 'Blurred photo']]} />
        {form.background === 'color' && (
          <label className="field">
            <span>Colour</span>
            <div className="row" style={{ flexWrap: 'nowrap' }}>
              <input type="color" value={form.color.length === 7 ? form.color : '#ffffff'} onChange={(e) => set({ color: e.target.value.toUpperCase() })} aria-label="Pick a colour" />
              <input
                type="text"
                className="grow mono"
                value={form.color}
                onChange={(e) => set({ color: e.target.value })}
                aria-label="Colour as #RRGGBB or #RRGGBBAA"
                data-testid="param-color"
              />
            </div>
          </label>
        )}
        {form.background === 'blur' && (
          <label className="field">
            <span>Blur radius (px)</span>
            <input type="number" min={1} max={250} value={form.blur} placeholder="default" onChange={(e) => set({ blur: e.target.value })} />
          </label>
        )}
        <Select form={form} set={set} k="shadow" label="Shadow" error={errors.shadow} options={[['none', 'None'], ['top', 'Contact shadow (lit from above)']]} />
        <Select form={form} set={set} k="crop" label="Crop" error={errors.crop} options={[['none', 'Keep the canvas'], ['subject', 'To the subject']]} />
        <Select form={form} set={set} k="size" label="Size" error={errors.size} options={[['original', 'Original'], ['box', 'Width × height'], ['long', 'Long edge']]} />
        {form.size === 'box' && (
          <label className="field">
            <span>Width × height (px)</span>
            <div className="row" style={{ flexWrap: 'nowrap' }}>
              <input type="number" min={1} className="grow" value={form.width} onChange={(e) => set({ width: e.target.value })} aria-label="Width" />
              ×
              <input type="number" min={1} className="grow" value={form.height} onChange={(e) => set({ height: e.target.value })} aria-label="Height" />
            </div>
          </label>
        )}
        {form.size === 'long' && (
          <label className="field">
            <span>Long edge (px)</span>
            <input type="number" min={1} value={form.longEdge} onChange={(e) => set({ longEdge: e.target.value })} />
          </label>
        )}
        <label className="field">
          <span>Margin</span>
          <div className="row" style={{ flexWrap: 'nowrap' }}>
            <input
              type="number"
              min={0}
              className="grow"
              value={form.margin}
              placeholder="default"
              onChange={(e) => set({ margin: e.target.value })}
              aria-invalid={errors.margin ? true : undefined}
              aria-label="Margin"
              data-testid="param-margin"
            />
            <select value={form.marginUnit} onChange={(e) => set({ marginUnit: e.target.value as '%' | 'px' })} aria-label="Margin unit">
              <option value="%">%</option>
              <option value="px">px</option>
            </select>
          </div>
          {errors.margin && <span className="field-error">{errors.margin}</span>}
        </label>
        <Select form={form} set={set} k="position" label="Position" error={errors.position} options={[['center', 'Centred'], ['bottom', 'On the bottom margin']]} />
        <fieldset className="field" style={{ border: 0, padding: 0, margin: 0 }}>
          <legend style={{ fontWeight: 600, fontSize: 12, marginBottom: 4 }} className="muted">
            Variations
          </legend>
          <div className="row">
            {VARIATIONS.map((v) => (
              <label key={v} className="row small" style={{ gap: 4 }}>
                <input
                  type="checkbox"
                  checked={form.variations.includes(v)}
                  onChange={(e) => set({ variations: e.target.checked ? VARIATIONS.filter((x) => x === v || form.variations.includes(x)) : form.variations.filter((x) => x !== v) })}
                />
                {v}
              </label>
            ))}
          </div>
          {errors.variations && <span className="field-error">{errors.variations}</span>}
        </fieldset>
        <Select form={form} set={set} k="primary" label="Primary (final_url)" error={errors.primary} options={VARIATIONS.map((v): [Variation, string] => [v, v])} />
        <label className="field">
          <span>Quality (jpg/webp)</span>
          <input type="number" min={1} max={100} value={form.quality} placeholder="default" onChange={(e) => set({ quality: e.target.value })} aria-invalid={errors.quality ? true : undefined} />
          {errors.quality && <span className="field-error">{errors.quality}</span>}
        </label>
        <Select form={form} set={set} k="refine" label="Edges" error={errors.refine} options={[['edges', 'Refine edges'], ['detail', 'Refine edges, second look at small subjects'], ['none', 'As the model gives']]} />
        <Select form={form} set={set} k="alpha" label="Existing transparency" error={errors.alpha} options={[['auto', 'Run the model'], ['keep', 'Keep the input alpha']]} />
        <Select form={form} set={set} k="metadata" label="Photo information" error={errors.metadata} options={[['keep', 'Keep (without location)'], ['keep-gps', 'Keep, with location'], ['strip', 'Remove']]} />
      </fieldset>
      {errors.params && <div className="field-error">{errors.params}</div>}
      <div className="stack" style={{ gap: 6 }}>
        <span className="muted small">As a parameter string</span>
        <pre className="code mono" data-testid="preset-params">{params || '(every key at its default)'}</pre>
      </div>
      <div className="two-col" style={{ gridTemplateColumns: '1fr 1fr' }}>
        <div className="stack" style={{ gap: 6 }}>
          <div className="row">
            <strong className="grow">Preview</strong>
            <label className="btn small">
              Use my image…
              <input type="file" accept="image/*" hidden onChange={(e) => setSample(e.currentTarget.files?.[0] ?? null)} />
            </label>
          </div>
          <div className="preview-box viewer-stage checker" aria-live="polite">
            {preview.status === 'done' && preview.url ? (
              <img src={preview.url} alt="Preview of the preset on the sample image" data-testid="preset-preview" />
            ) : preview.status === 'running' ? (
              <div style={{ width: '70%' }}>
                <ProgressBar value={preview.progress} label="Preview progress" />
              </div>
            ) : preview.status === 'failed' ? (
              <span className="field-error" style={{ padding: 12 }}>
                {preview.error}
              </span>
            ) : (
              <span className="muted small">{params ? 'Change a value to see it on the sample' : 'Set a key to see a preview'}</span>
            )}
          </div>
        </div>
        <div className="stack" style={{ justifyContent: 'flex-end' }}>
          <ErrorNote message={saveError} onDismiss={() => setSaveError(null)} testId="preset-save-error" />
          {!readOnly && (
            <button type="submit" className="btn primary" disabled={saving || !form.name || Boolean(nameError) || !valid || params === ''} data-testid="save-preset">
              {saving ? 'Saving…' : 'Save preset'}
            </button>
          )}
          {readOnly && (
            <button
              type="button"
              className="btn"
              onClick={() => {
                setCopied(true)
                set({ name: `${editing!.name}-copy` })
              }}
            >
              Copy to a new preset
            </button>
          )}
        </div>
      </div>
    </form>
  )
}

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

  const item = (p: PresetInfo): React.JSX.Element => (
    <div key={p.name} className="row" style={{ flexWrap: 'nowrap' }}>
      <button
        type="button"
        className="grow"
        aria-current={p.name === selected}
        onClick={() => {
          setCreating(false)
          setSelected(p.name)
        }}
      >
        <div style={{ fontWeight: 600 }}>{p.name}</div>
        <div className="muted small" style={{ overflow: 'hidden', textOverflow: 'ellipsis' }}>
          {p.description ?? p.params}
        </div>
      </button>
      {!p.builtin && (
        <button
          type="button"
          className="btn small danger"
          aria-label={`Delete preset ${p.name}`}
          onClick={() => {
            if (window.confirm(`Delete the preset "${p.name}"?`)) {
              if (selected === p.name) setSelected(null)
              void useStore.getState().deletePreset(p.name)
            }
          }}
        >
          Delete
        </button>
      )}
    </div>
  )

  return (
    <div className="stack">
      <div className="row">
        <h1 className="grow" style={{ margin: 0 }}>
          Presets
        </h1>
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
      <div className="two-col">
        <div className="card stack preset-list" role="list" aria-label="Presets">
          <h2>Yours</h2>
          {presets === null ? <span className="muted">Loading…</span> : user.length === 0 ? <span className="muted small">No presets of your own yet. “New preset” makes one.</span> : user.map(item)}
          <h2 style={{ marginTop: 8 }}>Built in</h2>
          {builtin.map(item)}
        </div>
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
              <p>A preset is a named set of parameters: background, shadow, crop, size, margin and more. Use it in a batch, a watched folder, `clipdesk process --params`, or as `params` in the API.</p>
            </Empty>
          </div>
        )}
      </div>
    </div>
  )
}
