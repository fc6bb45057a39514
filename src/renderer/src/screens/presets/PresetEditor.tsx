import { useEffect, useRef, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { apiBase, settingsCommands } from '../../../../shared/curl-example'
import { presetSlug, type PresetInfo } from '../../../../shared/presets'
import { CopyButton, ErrorNote } from '../../components/common'
import { checkForm, EMPTY_FORM, formFromValues, paramsOfForm, type PresetForm } from '../../lib/presetForm'
import { sampleImage } from '../../lib/sample'
import { useStore } from '../../store'
import { AppError, errorText } from '../../transport'
import { PresetControls } from './PresetControls'
import { PresetPreview } from './PresetPreview'

const PREVIEW_DELAY_MS = 900

/** Why Save cannot be pressed yet, in words (a greyed button alone says nothing). */
function saveBlocker(form: PresetForm, slug: string, valid: boolean, params: string): string | null {
  if (form.name.trim() === '') return 'Give the preset a name.'
  if (slug === '') return 'The name needs at least one letter or digit.'
  if (!valid) return 'Fix the settings marked in red.'
  if (params === '') return 'Choose at least one setting.'
  return null
}

/**
 * Makes or edits a preset: a display name with spaces ("Shop Beige"; the short name it is used
 * by, `shop-beige`, is made from it), the settings in a designer's words, and a live preview
 * of the whole output frame beside them, made by a real job on a sample photo.
 */
export function PresetEditor(props: { editing: PresetInfo | null; onDone: (name: string | null) => void }): React.JSX.Element {
  const { editing } = props
  const [form, setForm] = useState<PresetForm>(() =>
    editing ? formFromValues(editing.title, editing.description, editing.values) : EMPTY_FORM
  )
  const [saveError, setSaveError] = useState<string | null>(null)
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({})
  const [saving, setSaving] = useState(false)
  const [sample, setSample] = useState<Blob | null>(null)
  const [copied, setCopied] = useState(false)
  const { presets, listenerUrl, port, host } = useStore(
    useShallow((s) => ({
      presets: s.presets,
      listenerUrl: s.settings?.listener.url,
      port: s.settings?.settings.port,
      host: s.appInfo?.host
    }))
  )
  const set = (patch: Partial<PresetForm>): void => {
    setForm((f) => ({ ...f, ...patch }))
    setServerErrors({})
  }
  const params = paramsOfForm(form)
  // Commands that work when pasted (the set quoted for the shell, `--form-string` for curl).
  const commands = settingsCommands(params, apiBase(listenerUrl, port, host === 'server' ? window.location.origin : null))
  const errors = { ...checkForm(form), ...serverErrors }
  const readOnly = editing?.builtin === true && !copied
  // An existing user preset keeps its short name; a new one (or a copy) takes it from the name.
  const slug = editing && !editing.builtin ? editing.name : presetSlug(form.name)
  const clash = !editing || editing.builtin ? (presets ?? []).find((p) => p.name === slug) : undefined
  const nameError =
    errors.title ?? errors.name ?? (clash?.builtin ? `"${clash.title}" is a built-in preset: choose another name` : undefined)
  const valid = Object.keys(checkForm(form)).length === 0
  const blocker = readOnly ? null : saveBlocker(form, slug, valid && !clash?.builtin, params)

  // Opened below the list (a narrow window): brought into view.
  const formRef = useRef<HTMLFormElement>(null)
  useEffect(() => {
    formRef.current?.scrollIntoView?.({ block: 'nearest' })
  }, [])

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
      await useStore.getState().savePreset({ name: slug, title: form.name.trim(), params, description: form.description.trim() || null })
      props.onDone(slug)
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
      ref={formRef}
      className="card stack preset-editor"
      aria-label={editing ? `Edit preset ${editing.title}` : 'New preset'}
      onSubmit={(e) => {
        e.preventDefault()
        if (!readOnly && !blocker) void save()
      }}
      data-testid="preset-editor"
    >
      <div className="row nowrap">
        <h2 className="grow flush wrap-anywhere">
          {readOnly ? `${editing!.title} (built in)` : editing && !copied ? `Edit ${editing.title}` : 'New preset'}
        </h2>
        {!readOnly && (
          <button
            type="submit"
            className="btn primary"
            disabled={saving || blocker !== null}
            data-testid="save-preset"
            title={blocker ?? undefined}
          >
            {saving ? 'Saving…' : 'Save preset'}
          </button>
        )}
        {readOnly && (
          <button
            type="button"
            className="btn"
            onClick={() => {
              setCopied(true)
              set({ name: `${editing!.title} copy` })
            }}
          >
            Copy to a new preset
          </button>
        )}
        <button type="button" className="btn" onClick={() => props.onDone(null)}>
          Close
        </button>
      </div>
      {blocker && form.name.trim() !== '' && (
        <div className="muted small" data-testid="save-blocker">
          {blocker}
        </div>
      )}
      <ErrorNote message={saveError} onDismiss={() => setSaveError(null)} testId="preset-save-error" />
      {readOnly && <div className="notice small">Built-in presets cannot be changed. Copy it to a new preset to adjust it.</div>}
      <div className="editor-columns">
        <div className="stack">
          <div className="form-grid">
            <label className="field span-all">
              <span>Name</span>
              <input
                type="text"
                value={form.name}
                onChange={(e) => set({ name: e.target.value })}
                placeholder="e.g. Shop Beige"
                aria-invalid={nameError ? true : undefined}
                required
                disabled={readOnly}
                maxLength={120}
                data-testid="preset-name"
              />
              {nameError ? (
                <span className="field-error">{nameError}</span>
              ) : (
                slug && (
                  <div className="muted small" data-testid="preset-slug">
                    Used as <span className="mono">{slug}</span> in clipdesk process --params and the API
                    {clash && !clash.builtin && (!editing || editing.builtin) ? ` (replaces your preset “${clash.title}”)` : ''}
                  </div>
                )
              )}
            </label>
            <label className="field span-all">
              <span>Description</span>
              <input
                type="text"
                value={form.description}
                onChange={(e) => set({ description: e.target.value })}
                placeholder="What it is for"
                disabled={readOnly}
                maxLength={500}
              />
            </label>
          </div>
          <PresetControls form={form} set={set} errors={errors} readOnly={readOnly} />
          {errors.params && <div className="field-error">{errors.params}</div>}
          <details>
            <summary className="small muted">Use these settings in the command line or the API</summary>
            <pre className="code mono preset-params" data-testid="preset-params">
              {params || '(every setting at its default)'}
            </pre>
            <div className="row">
              <span className="small muted grow">Command line</span>
              <CopyButton text={commands.cli} />
            </div>
            <pre className="code mono preset-params" data-testid="preset-cli">
              {commands.cli}
            </pre>
            <div className="row">
              <span className="small muted grow">API (curl)</span>
              <CopyButton text={commands.curl} />
            </div>
            <pre className="code mono preset-params" data-testid="preset-curl">
              {commands.curl}
            </pre>
          </details>
        </div>
        <PresetPreview hasSettings={params !== ''} onSample={setSample} />
      </div>
    </form>
  )
}
