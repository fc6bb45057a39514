import { useEffect, useRef, useState } from 'react'
import { useStore } from '../../store'
import { connectWithKey } from '../../store/connect'

/** A browser against `clipdesk serve`: the owner key, entered once (kept in this browser). */
export default function Connect(): React.JSX.Element {
  const error = useStore((s) => s.connectError)
  const [key, setKey] = useState('')
  const [busy, setBusy] = useState(false)
  // The page is this one field: the key can be typed (or pasted) at once.
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => {
    input.current?.focus()
  }, [])
  return (
    <main className="connect card stack">
      <h1>Clipdesk</h1>
      <p className="muted">
        This browser talks to <span className="mono">clipdesk serve</span> at <span className="mono">{window.location.host}</span>. Enter an
        owner API key: the one it printed on first start, or one made with <span className="mono">clipdesk keys create --admin</span>. It is
        kept in this browser.
      </p>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault()
          setBusy(true)
          void connectWithKey(key).finally(() => setBusy(false))
        }}
      >
        <label className="field">
          <span>API key</span>
          <input
            type="password"
            className="mono"
            value={key}
            onChange={(e) => setKey(e.target.value)}
            placeholder="cdk_…"
            autoComplete="off"
            ref={input}
            aria-invalid={error ? true : undefined}
            data-testid="api-key-input"
          />
        </label>
        {error && (
          <div className="error" role="alert">
            {error}
          </div>
        )}
        <button type="submit" className="btn primary" disabled={busy || key.trim() === ''} data-testid="connect">
          {busy ? 'Checking…' : 'Connect'}
        </button>
      </form>
    </main>
  )
}
