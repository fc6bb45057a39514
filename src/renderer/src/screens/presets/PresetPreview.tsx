import { ProgressBar } from '../../components/common'
import { useStore } from '../../store'

/**
 * The live preview beside the preset's controls: the result of a real job on the sample photo
 * (or the user's own), shown whole in a square box, so that a square result's margin and shadow
 * stay in view; under it, the warnings the same job gives a batch ("enlarged 3.1×: … looks soft").
 */
export function PresetPreview(props: { hasSettings: boolean; onSample: (file: Blob | null) => void }): React.JSX.Element {
  const preview = useStore((s) => s.preview)
  return (
    <div className="editor-preview" data-testid="preset-preview-panel">
      <div className="row nowrap">
        <strong className="grow">Preview</strong>
        <label className="btn small">
          Use my image…
          <input type="file" accept="image/*" hidden onChange={(e) => props.onSample(e.currentTarget.files?.[0] ?? null)} />
        </label>
      </div>
      <div className="preview-box checker" aria-live="polite">
        {preview.status === 'done' && preview.url ? (
          <img src={preview.url} alt="Preview of the preset on the sample image: the whole output frame" data-testid="preset-preview" />
        ) : preview.status === 'running' ? (
          <div className="preview-progress">
            <ProgressBar value={preview.progress} label="Preview progress" />
          </div>
        ) : preview.status === 'failed' ? (
          <span className="field-error preview-message">{preview.error}</span>
        ) : (
          <span className="muted small preview-message preview-hint">
            {props.hasSettings ? 'Change a setting to see it on the sample' : 'Choose a setting to see a preview'}
          </span>
        )}
      </div>
      {preview.status === 'done' &&
        preview.warnings.map((w) => (
          <span key={w} className="warn small" role="status" data-testid="preview-warning">
            ⚠ {w}
          </span>
        ))}
      <span className="muted small">The whole output, margins included, on a checkerboard where it is transparent.</span>
    </div>
  )
}
