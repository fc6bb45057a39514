import { useState } from 'react'
import type { Mode, OutputFormat } from '../../../../shared/api'
import { dateToken, NAME_TOKENS, outputNames, templateProblem } from '../../../../shared/names'
import { DEFAULT_NAME_TEMPLATE, type Originals, type WatchFolderView } from '../../../../shared/watch'
import { ErrorNote } from '../../components/common'
import { FolderField } from '../../components/FolderField'
import { FormatField, ModeField } from '../../components/JobFields'
import { useStore } from '../../store'
import { AppError, errorText } from '../../transport'

interface FormState {
  path: string
  recursive: boolean
  /** A preset name, or '' for none. */
  preset: string
  mode: Mode
  /** Parameter string when mode is `params` without a preset. */
  params: string
  format: OutputFormat
  outputDir: string
  template: string
  originals: Originals
  paused: boolean
}

function formOf(f: WatchFolderView | null, presetNames: string[]): FormState {
  if (!f) {
    return {
      path: '',
      recursive: true,
      preset: '',
      mode: 'clipping',
      params: '',
      format: 'png',
      outputDir: '',
      template: DEFAULT_NAME_TEMPLATE,
      originals: 'keep',
      paused: false
    }
  }
  const params = f.request.params ?? ''
  const isPreset = f.request.mode === 'params' && presetNames.includes(params)
  return {
    path: f.path,
    recursive: f.recursive,
    preset: isPreset ? params : '',
    mode: f.request.mode,
    params: isPreset ? '' : params,
    format: f.request.output_format,
    outputDir: f.output_dir_default ? '' : f.output_dir,
    template: f.name_template,
    originals: f.originals,
    paused: f.paused
  }
}

/** What a name would look like, for the template field: the writer's own renderer, for a `photo.jpg` today. */
export function templateExample(template: string, form: Pick<FormState, 'mode' | 'preset' | 'format'>): string {
  const variation = form.mode === 'clipping' ? 'clipping' : 'compose'
  const naming = { relPath: 'photo.jpg', template, mode: form.mode, params: form.preset || null, date: dateToken(new Date()), seq: 1 }
  return outputNames(naming, [{ variation, ext: form.format }])[0]!
}

/** Add or edit a watched folder. Server refusals are shown on the field they name. */
export function FolderForm(props: { editing: WatchFolderView | null; onDone: () => void }): React.JSX.Element {
  const presets = useStore((s) => s.presets)
  const presetNames = (presets ?? []).map((p) => p.name)
  const presetTitle = (name: string): string => presets?.find((p) => p.name === name)?.title ?? name
  const [form, setForm] = useState<FormState>(() => formOf(props.editing, presetNames))
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({})
  const [error, setError] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const set = (patch: Partial<FormState>): void => {
    setForm((f) => ({ ...f, ...patch }))
    setFieldErrors({})
  }
  const templateError = templateProblem(form.template)
  const paramsMissing = form.mode === 'params' && !form.preset && form.params.trim() === ''

  const save = async (): Promise<void> => {
    setSaving(true)
    setError(null)
    const mode: Mode = form.preset ? 'params' : form.mode
    const params = form.preset || (mode === 'params' ? form.params.trim() : '') || null
    const common = {
      recursive: form.recursive,
      mode,
      params,
      output_format: form.format,
      output_dir: form.outputDir.trim() || null,
      name_template: form.template,
      originals: form.originals
    }
    try {
      if (props.editing) await useStore.getState().updateWatch({ id: props.editing.id, ...common })
      else await useStore.getState().addWatch({ path: form.path.trim(), paused: form.paused, ...common })
      props.onDone()
    } catch (err) {
      if (err instanceof AppError && err.details.length > 0) setFieldErrors(Object.fromEntries(err.details.map((d) => [d.field, d.issue])))
      setError(errorText(err))
    } finally {
      setSaving(false)
    }
  }

  const requestChanged =
    props.editing !== null &&
    (props.editing.request.mode !== (form.preset ? 'params' : form.mode) ||
      (props.editing.request.params ?? '') !== (form.preset || (form.mode === 'params' ? form.params.trim() : '')) ||
      props.editing.request.output_format !== form.format)

  return (
    <form
      className="card stack"
      aria-label={props.editing ? `Edit watched folder ${props.editing.path}` : 'Add a watched folder'}
      onSubmit={(e) => {
        e.preventDefault()
        void save()
      }}
      data-testid="watch-form"
    >
      <div className="row">
        <h2 className="grow flush">{props.editing ? 'Edit watched folder' : 'Add a watched folder'}</h2>
        <button type="button" className="btn" onClick={props.onDone}>
          Close
        </button>
      </div>
      <FolderField
        label="Folder to watch"
        value={form.path}
        placeholder="/path/to/hot-folder"
        onChange={(path) => set({ path })}
        disabled={props.editing !== null}
        invalid={Boolean(fieldErrors.path)}
        required
        testId="watch-path"
      >
        {fieldErrors.path && <span className="field-error">{fieldErrors.path}</span>}
      </FolderField>
      <div className="form-grid">
        <label className="field">
          <span>Preset</span>
          <select value={form.preset} onChange={(e) => set({ preset: e.target.value })} data-testid="watch-preset">
            <option value="">None</option>
            {presetNames.map((n) => (
              <option key={n} value={n}>
                {presetTitle(n)}
              </option>
            ))}
          </select>
        </label>
        <ModeField className="field" mode={form.mode} preset={form.preset} offerParams onChange={(mode) => set({ mode })}>
          {fieldErrors.mode && <span className="field-error">{fieldErrors.mode}</span>}
        </ModeField>
        <FormatField value={form.format} onChange={(format) => set({ format })} />
      </div>
      {form.mode === 'params' && !form.preset && (
        <label className="field">
          <span>Settings</span>
          <input
            type="text"
            className="mono"
            value={form.params}
            placeholder="e.g. background=white;crop=subject;size=1600x1600;margin=6%"
            onChange={(e) => set({ params: e.target.value })}
            aria-invalid={fieldErrors.params || paramsMissing ? true : undefined}
          />
          {(fieldErrors.params || paramsMissing) && (
            <span className="field-error">{fieldErrors.params ?? 'write the settings, or choose a preset'}</span>
          )}
        </label>
      )}
      <FolderField
        label="Output folder"
        value={form.outputDir}
        placeholder={form.path ? `${form.path.replace(/[\\/]+$/, '')}/clipdesk-out` : '<folder>/clipdesk-out'}
        onChange={(outputDir) => set({ outputDir })}
        invalid={Boolean(fieldErrors.output_dir)}
        testId="watch-output"
      >
        {fieldErrors.output_dir && <span className="field-error">{fieldErrors.output_dir}</span>}
      </FolderField>
      <label className="field">
        <span>File names</span>
        <input
          type="text"
          className="mono"
          value={form.template}
          onChange={(e) => set({ template: e.target.value })}
          aria-invalid={templateError || fieldErrors.name_template ? true : undefined}
          data-testid="watch-template"
        />
        {templateError || fieldErrors.name_template ? (
          <span className="field-error">{templateError ?? fieldErrors.name_template}</span>
        ) : (
          <span className="muted small">
            e.g. <span className="mono">{templateExample(form.template, form)}</span> · tokens {NAME_TOKENS.map((t) => `{${t}}`).join(' ')}.
            “/” makes sub-folders
          </span>
        )}
      </label>
      <div className="row watch-options">
        <label className="check small">
          <input type="checkbox" checked={form.recursive} onChange={(e) => set({ recursive: e.target.checked })} />
          <span>Include sub-folders</span>
        </label>
        <label className="check small">
          <input
            type="checkbox"
            checked={form.originals === 'move'}
            onChange={(e) => set({ originals: e.target.checked ? 'move' : 'keep' })}
          />
          <span>
            Move originals to <span className="mono">clipdesk-done</span> when processed
          </span>
        </label>
        {!props.editing && (
          <label className="check small">
            <input type="checkbox" checked={form.paused} onChange={(e) => set({ paused: e.target.checked })} />
            <span>Start paused</span>
          </label>
        )}
      </div>
      {requestChanged && form.originals === 'keep' && (
        <div className="notice small">
          Changing the preset, mode or format processes the photos still in the folder again with the new settings.
        </div>
      )}
      <ErrorNote message={error} onDismiss={() => setError(null)} testId="watch-form-error" />
      <div className="row">
        <span className="grow" />
        <button
          type="submit"
          className="btn primary"
          disabled={saving || (!props.editing && form.path.trim() === '') || templateError !== null || paramsMissing}
          data-testid="watch-save"
        >
          {saving ? 'Saving…' : props.editing ? 'Save changes' : 'Watch this folder'}
        </button>
      </div>
    </form>
  )
}
