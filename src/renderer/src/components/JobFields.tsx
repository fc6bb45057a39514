/**
 * The fields a batch and a watched folder share for the job they run: the mode (disabled, saying
 * it comes from the preset, while one is chosen) and the output format, each a labelled menu.
 */
import type { ReactNode } from 'react'
import { OUTPUT_FORMATS, type Mode, type OutputFormat } from '../../../shared/api'
import { FROM_PRESET_LABEL, MODE_LABEL } from '../../../shared/vocabulary'

export function ModeField(props: {
  className: string
  mode: Mode
  /** The chosen preset's name, '' for none. */
  preset: string
  /** Whether a set of parameters of its own is a choice here (a watched folder's), besides a preset. */
  offerParams?: boolean
  onChange: (mode: Mode) => void
  /** Shown under the menu (a problem with the choice). */
  children?: ReactNode
}): React.JSX.Element {
  return (
    <label className={props.className}>
      <span>Mode</span>
      <select
        value={props.preset ? 'params' : props.mode}
        disabled={props.preset !== ''}
        onChange={(e) => props.onChange(e.target.value as Mode)}
      >
        {props.preset && <option value="params">{FROM_PRESET_LABEL}</option>}
        <option value="clipping">{MODE_LABEL.clipping}</option>
        <option value="background">{MODE_LABEL.background}</option>
        {props.offerParams && !props.preset && <option value="params">{MODE_LABEL.params}</option>}
      </select>
      {props.children}
    </label>
  )
}

/** The output format (`jpeg`, the same as `jpg` but for the file ending, is not listed twice). */
export function FormatField(props: { value: OutputFormat; onChange: (format: OutputFormat) => void; testId?: string }): React.JSX.Element {
  return (
    <label className="field">
      <span>Format</span>
      <select value={props.value} onChange={(e) => props.onChange(e.target.value as OutputFormat)} data-testid={props.testId}>
        {OUTPUT_FORMATS.filter((f) => f !== 'jpeg').map((f) => (
          <option key={f} value={f}>
            {f.toUpperCase()}
          </option>
        ))}
      </select>
    </label>
  )
}
