import type { ReactNode } from 'react'
import { useStore } from '../store'
import { transport } from '../transport'

/**
 * A folder's path: a text field, and a "Choose…" button that opens the system's folder picker
 * where the host can show one (the desktop app; a browser on a server cannot), in a `<label>`
 * that names it; `children` (the field's error) go below, inside the label.
 */
export function FolderField(props: {
  label: ReactNode
  value: string
  onChange: (path: string) => void
  placeholder?: string
  disabled?: boolean
  invalid?: boolean
  required?: boolean
  testId?: string
  children?: ReactNode
}): React.JSX.Element {
  const canPick = useStore((s) => s.appInfo?.canPickFolder ?? false)
  const { onChange } = props
  const choose = async (): Promise<void> => {
    const folder = await transport().pickFolder()
    if (folder) onChange(folder)
  }
  return (
    <label className="field">
      <span>{props.label}</span>
      <div className="row folder-field">
        <input
          type="text"
          className="grow mono"
          value={props.value}
          placeholder={props.placeholder}
          onChange={(e) => onChange(e.target.value)}
          disabled={props.disabled}
          aria-invalid={props.invalid ? true : undefined}
          required={props.required}
          data-testid={props.testId}
        />
        {canPick && !props.disabled && (
          <button type="button" className="btn" onClick={() => void choose()}>
            Choose…
          </button>
        )}
      </div>
      {props.children}
    </label>
  )
}
