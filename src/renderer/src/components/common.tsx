import { type ReactNode, useState } from 'react'

/**
 * How a bar ended: `done` (green) only when everything succeeded; `warn` with errors; `stopped`
 * (grey, the rest hatched); `failed` (red); `running` while it moves.
 */
export type Tone = 'running' | 'done' | 'warn' | 'stopped' | 'failed'

export function ProgressBar(props: { value: number; label: string; thin?: boolean; testId?: string; tone?: Tone }): React.JSX.Element {
  const value = Math.max(0, Math.min(100, Math.round(props.value)))
  const tone = props.tone ?? (value >= 100 ? 'done' : 'running')
  return (
    <div
      className={`progress${props.thin ? ' thin' : ''} tone-${tone}`}
      data-tone={tone}
      role="progressbar"
      aria-label={props.label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={value}
      data-testid={props.testId}
    >
      <div style={{ width: `${value}%` }} />
    </div>
  )
}

/** An error shown where it happened, with a way to dismiss it. */
export function ErrorNote(props: { message: string | null; onDismiss?: () => void; testId?: string }): React.JSX.Element | null {
  if (!props.message) return null
  return (
    <div className="error" role="alert" data-testid={props.testId}>
      <span>{props.message}</span>
      {props.onDismiss && (
        <button type="button" className="btn small" onClick={props.onDismiss} aria-label="Dismiss">
          ×
        </button>
      )}
    </div>
  )
}

export function Empty(props: { title: string; children?: ReactNode }): React.JSX.Element {
  return (
    <div className="empty">
      <strong>{props.title}</strong>
      {props.children}
    </div>
  )
}

/** Copies text to the clipboard; says so for a moment. */
export function CopyButton(props: { text: string; label?: string }): React.JSX.Element {
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no')
  return (
    <button
      type="button"
      className="btn small"
      onClick={() => {
        navigator.clipboard.writeText(props.text).then(
          () => setCopied('yes'),
          () => setCopied('failed')
        )
        setTimeout(() => setCopied('no'), 1500)
      }}
    >
      {copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Select and copy' : (props.label ?? 'Copy')}
    </button>
  )
}
