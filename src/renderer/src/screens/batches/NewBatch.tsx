import { useRef } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { IMAGE_EXTENSIONS } from '../../../../shared/image-types'
import { photoNumbers, plannedOutputs } from '../../../../shared/outputs'
import { requestOf } from '../../store/batchSlice'
import { filesFromInput } from '../../lib/files'
import { formatBytes } from '../../lib/format'
import { useStore } from '../../store'
import { FolderField } from '../../components/FolderField'
import { FormatField, ModeField } from '../../components/JobFields'
import { MiddleEllipsis } from '../../components/MiddleEllipsis'

const SHOWN = 200
/** What the file picker offers: images, and by ending the image types a browser may not call images (PSD, TIFF…). */
const FILE_ACCEPT = ['image/*', ...IMAGE_EXTENSIONS].join(',')

/** Staging a batch: files and folders in, preset or mode + format, destination, start. */
export function NewBatch(): React.JSX.Element {
  const { staged, draft, starting, presets, appInfo, destinationProblem } = useStore(
    useShallow((s) => ({
      staged: s.staged,
      draft: s.draft,
      starting: s.starting,
      presets: s.presets,
      appInfo: s.appInfo,
      destinationProblem: s.destinationProblem
    }))
  )
  const { stage, unstage, clearStaged, setDraft, startBatch } = useStore.getState()
  const filesInput = useRef<HTMLInputElement>(null)
  const folderInput = useRef<HTMLInputElement>(null)
  const others = staged.filter((f) => f.notImage).length
  const images = staged.length - others
  const total = staged.reduce((n, f) => n + f.file.size, 0)
  // The files each photo will give, shown before Start (same rule as the service that writes them).
  const request = requestOf(draft)
  const lookup = (name: string) => presets?.find((p) => p.name === name)?.values ?? null
  const planFor = (relPath: string, seq = 1): string[] | null => plannedOutputs(request, relPath, lookup, seq)?.names ?? null
  const perPhoto = planFor('photo.jpg')
  // `{n}` counts photos in the order shown, as the batch numbers them.
  const numbers = photoNumbers(staged.slice(0, SHOWN))

  return (
    <section className="card stack" aria-labelledby="new-batch-title">
      <h2 id="new-batch-title">New batch</h2>
      <div className="dropzone">
        <div>Drop files or folders anywhere in the window</div>
        <div className="row dropzone-actions">
          <button type="button" className="btn" onClick={() => filesInput.current?.click()}>
            Add files…
          </button>
          <button type="button" className="btn" onClick={() => folderInput.current?.click()}>
            Add folder…
          </button>
        </div>
        <input
          ref={filesInput}
          type="file"
          multiple
          accept={FILE_ACCEPT}
          hidden
          data-testid="file-input"
          onChange={(e) => {
            stage(filesFromInput(e.currentTarget.files))
            e.currentTarget.value = ''
          }}
        />
        <input
          ref={folderInput}
          type="file"
          hidden
          data-testid="folder-input"
          {...({ webkitdirectory: '' } as Record<string, string>)}
          onChange={(e) => {
            stage(filesFromInput(e.currentTarget.files))
            e.currentTarget.value = ''
          }}
        />
      </div>

      {staged.length > 0 && (
        <div className="stack gap-6">
          <div className="row">
            <strong className="grow" data-testid="staged-count">
              {images} {images === 1 ? 'file' : 'files'} ready ({formatBytes(total)})
              {others > 0 && (
                <span className="muted" data-testid="staged-not-images">
                  {' '}
                  · {others} not {others === 1 ? 'an image' : 'images'} (listed, not processed)
                </span>
              )}
            </strong>
            <button type="button" className="btn small" onClick={clearStaged} disabled={starting !== null}>
              Clear
            </button>
          </div>
          <ul className="staged-list" aria-label="Files ready to start">
            {staged.slice(0, SHOWN).map((f, i) => (
              <li key={f.id} title={f.relPath}>
                {/* The file's own name leads, cut in its middle; its folder is in the tooltip. */}
                <MiddleEllipsis className="staged-name" text={f.relPath.slice(f.relPath.lastIndexOf('/') + 1)} testId="staged-name" />
                <span className="muted ellipsis staged-plan" data-testid="planned-outputs">
                  {'→ '}
                  {f.notImage ? 'not an image: listed, not processed' : (planFor(f.relPath, numbers[i])?.join(', ') ?? '?')}
                </span>
                <button type="button" className="btn small" aria-label={`Remove ${f.relPath}`} onClick={() => unstage(f.id)}>
                  ×
                </button>
              </li>
            ))}
            {staged.length > SHOWN && <li className="muted">and {staged.length - SHOWN} more</li>}
          </ul>
        </div>
      )}

      <div className="form-grid halves">
        {/* The menus whose choices are long take a whole line: "None: choose a mode", "Cut-out (transparent)", a preset's title. */}
        <label className="field span-all">
          <span>Preset</span>
          <select
            value={draft.preset}
            // A preset that sets a format (a store preset's JPEG) sets the batch's; the Format field can change it after.
            onChange={(e) => {
              const format = presets?.find((p) => p.name === e.target.value)?.values.format
              setDraft({ preset: e.target.value, ...(format && { output_format: format === 'jpeg' ? 'jpg' : format }) })
            }}
            data-testid="batch-preset"
          >
            <option value="">None: choose a mode</option>
            {/* A preset kept from an earlier visit that is gone since: shown as it is, the plan says it cannot be read. */}
            {draft.preset && presets && !presets.some((p) => p.name === draft.preset) && (
              <option value={draft.preset}>{draft.preset}</option>
            )}
            {(presets ?? []).map((p) => (
              <option key={p.name} value={p.name}>
                {p.title}
              </option>
            ))}
          </select>
        </label>
        {/* Without a preset only the two modes are offered. */}
        <ModeField
          className="field span-all"
          mode={draft.mode}
          preset={draft.preset}
          onChange={(mode) => setDraft({ mode: mode as 'clipping' | 'background' })}
        />
        <FormatField value={draft.output_format} onChange={(format) => setDraft({ output_format: format })} testId="batch-format" />
        <label className="field">
          <span>Name (optional)</span>
          <input type="text" value={draft.name} placeholder="e.g. Spring shoot" onChange={(e) => setDraft({ name: e.target.value })} />
        </label>
      </div>
      <label className="check">
        <input
          type="checkbox"
          checked={draft.all_variations}
          onChange={(e) => setDraft({ all_variations: e.currentTarget.checked })}
          data-testid="batch-all-variations"
        />
        <span>
          All variations <span className="muted small">(every version of each photo: cut-out, on background, with shadow…)</span>
        </span>
      </label>
      <label className="field">
        <span>File names (optional)</span>
        <input
          type="text"
          className="mono"
          value={draft.name_template}
          placeholder="{name}.{ext} — also {variation} {preset} {date}, / for folders"
          onChange={(e) => setDraft({ name_template: e.target.value })}
          data-testid="batch-name-template"
        />
      </label>
      <p className="muted" data-testid="batch-plan">
        {perPhoto
          ? `Each photo gives ${perPhoto.length === 1 ? 'one file' : `${perPhoto.length} files`}: ${perPhoto.join(', ')}${images > 0 ? ` (${images * perPhoto.length} in all)` : ''}. A name already taken gets -1, -2…`
          : 'The preset cannot be read; choose another.'}
      </p>
      <FolderField
        label="Destination folder"
        value={draft.destination}
        placeholder={appInfo?.defaultDestination ?? '/path/to/output'}
        onChange={(destination) => setDraft({ destination })}
        invalid={destinationProblem !== null}
        testId="batch-destination"
      />
      {destinationProblem && (
        <span className="field-problem" role="alert" data-testid="destination-problem">
          <span className="field-error">{destinationProblem.message}</span>
          {destinationProblem.detail && (
            <details className="problem-detail">
              <summary>Details</summary>
              <pre>{destinationProblem.detail}</pre>
            </details>
          )}
        </span>
      )}
      <button
        type="button"
        className="btn primary"
        disabled={staged.length === 0 || starting !== null}
        onClick={() => void startBatch()}
        data-testid="start-batch"
      >
        {starting
          ? `Sending ${starting.sent}/${starting.total}…`
          : images > 0
            ? `Start (${images} ${images === 1 ? 'file' : 'files'})`
            : 'Start'}
      </button>
    </section>
  )
}
