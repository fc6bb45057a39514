import { useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import type { ApiKeyView } from '../../../../shared/app'
import { CopyButton, Empty, ErrorNote } from '../../components/common'
import { apiBase, curlExample } from '../../../../shared/curl-example'
import { formatDate } from '../../lib/format'
import { useStore } from '../../store'
import Workers from './Workers'

function Listener(): React.JSX.Element {
  const { settings, settingsError } = useStore(useShallow((s) => ({ settings: s.settings, settingsError: s.settingsError })))
  const [port, setPort] = useState('')
  // The field follows the saved port (not every change of the settings: a port being typed stays).
  const savedPort = settings?.settings.port
  useEffect(() => {
    if (savedPort !== undefined) setPort(String(savedPort))
  }, [savedPort])
  if (!settings) return <div className="card muted">Loading…</div>
  const { listener } = settings
  const portNumber = Number(port)
  const portValid = Number.isInteger(portNumber) && portNumber >= 1 && portNumber <= 65535
  return (
    <section className="card stack" aria-labelledby="listener-title">
      <h2 id="listener-title">Local API listener</h2>
      {listener.managed ? (
        <>
          <div className="row">
            <label className="row">
              <input
                type="checkbox"
                checked={settings.settings.listenerEnabled}
                onChange={(e) => void useStore.getState().saveSettings({ listenerEnabled: e.target.checked })}
                data-testid="listener-toggle"
              />
              Answer <span className="mono">/api/v1</span> on 127.0.0.1
            </label>
          </div>
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault()
              if (portValid) void useStore.getState().saveSettings({ port: portNumber })
            }}
          >
            <label className="field">
              <span>Port</span>
              <input
                type="number"
                min={1}
                max={65535}
                value={port}
                onChange={(e) => setPort(e.target.value)}
                aria-invalid={!portValid || undefined}
                className="api-port"
              />
            </label>
            <button type="submit" className="btn self-end" disabled={!portValid || portNumber === settings.settings.port}>
              Apply
            </button>
          </form>
        </>
      ) : (
        <p className="muted small">
          This page is served by <span className="mono">clipdesk serve</span>: the listener is that server (its port is set with{' '}
          <span className="mono">--port</span>).
        </p>
      )}
      <div className="small" data-testid="listener-status">
        {listener.running ? (
          <>
            Listening on <span className="mono">{listener.url}</span>
          </>
        ) : (
          'Not listening'
        )}
      </div>
      <ErrorNote message={listener.error ?? settingsError} />
    </section>
  )
}

function KeyRow({ k }: { k: ApiKeyView }): React.JSX.Element {
  const [adding, setAdding] = useState('')
  const revoked = k.revoked_at !== null
  const n = Number(adding)
  return (
    <tr data-testid="key-row" data-key-id={k.id} data-state={revoked ? 'revoked' : 'active'}>
      <td>
        <div className="api-key-name">{k.name ?? '(no name)'}</div>
        <div className="mono muted small">
          {k.id} · {k.prefix}…
        </div>
      </td>
      <td>
        {revoked ? <span className="badge cancelled">revoked</span> : <span className="badge done">active</span>}{' '}
        {k.admin && <span className="badge owner">owner</span>} {k.kind === 'worker' && <span className="badge owner">worker</span>}
      </td>
      <td>
        {k.credits === null ? 'unlimited' : k.credits}
        {!revoked && k.credits !== null && (
          <form
            className="row nowrap api-add-credits"
            onSubmit={(e) => {
              e.preventDefault()
              if (Number.isInteger(n) && n > 0)
                void useStore
                  .getState()
                  .addCredits(k.id, n)
                  .then(() => setAdding(''))
            }}
          >
            <input
              type="number"
              min={1}
              value={adding}
              onChange={(e) => setAdding(e.target.value)}
              aria-label={`Credits to add to ${k.name ?? k.id}`}
              placeholder="+ n"
            />
            <button type="submit" className="btn small" disabled={!(Number.isInteger(n) && n > 0)}>
              Add
            </button>
          </form>
        )}
      </td>
      <td className="small">{formatDate(k.created_at)}</td>
      <td>
        {!revoked && (
          <button
            type="button"
            className="btn small danger"
            onClick={() => {
              if (window.confirm(`Revoke the key "${k.name ?? k.id}"? Programs using it get 401 from now on.`))
                void useStore.getState().revokeKey(k.id)
            }}
            aria-label={`Revoke ${k.name ?? k.id}`}
            data-testid="revoke-key"
          >
            Revoke
          </button>
        )}
      </td>
    </tr>
  )
}

function Keys(): React.JSX.Element {
  const { keys, keysError, createdKey } = useStore(useShallow((s) => ({ keys: s.keys, keysError: s.keysError, createdKey: s.createdKey })))
  const [name, setName] = useState('')
  const [credits, setCredits] = useState('')
  const [admin, setAdmin] = useState(false)
  const creditsValid = credits.trim() === '' || (Number.isInteger(Number(credits)) && Number(credits) >= 0)
  return (
    <section className="card stack" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      {createdKey && (
        <div className="secret stack" role="status" data-testid="created-key">
          <strong>Copy the key of “{createdKey.info.name ?? createdKey.info.id}” now: it is shown only this once.</strong>
          <div className="row nowrap">
            <code className="mono grow api-secret" data-testid="created-key-secret">
              {createdKey.key}
            </code>
            <CopyButton text={createdKey.key} />
          </div>
          <div>
            <button type="button" className="btn small" onClick={() => useStore.getState().dismissCreatedKey()}>
              I have saved it
            </button>
          </div>
        </div>
      )}
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault()
          if (!creditsValid) return
          void useStore
            .getState()
            .createKey({ name: name.trim() || undefined, credits: credits.trim() === '' ? null : Number(credits), admin })
            .then((ok) => {
              if (ok) {
                setName('')
                setCredits('')
                setAdmin(false)
              }
            })
        }}
      >
        <label className="field">
          <span>Name</span>
          <input
            type="text"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="e.g. Photoshop script"
            data-testid="key-name"
          />
        </label>
        <label className="field">
          <span>Credits (empty: unlimited)</span>
          <input
            type="number"
            min={0}
            value={credits}
            onChange={(e) => setCredits(e.target.value)}
            aria-invalid={!creditsValid || undefined}
            className="api-credits"
          />
        </label>
        <label className="row small api-owner">
          <input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.target.checked)} />
          Owner (may open the app in a browser and manage keys)
        </label>
        <button type="submit" className="btn primary self-end" disabled={!creditsValid} data-testid="create-key">
          Create key
        </button>
      </form>
      <ErrorNote message={keysError} onDismiss={() => useStore.setState({ keysError: null })} />
      {keys === null ? (
        <span className="muted">Loading…</span>
      ) : keys.length === 0 ? (
        <Empty title="No keys yet">Create one for each program that should use the API.</Empty>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Key</th>
              <th>State</th>
              <th>Credits</th>
              <th>Created</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <KeyRow key={k.id} k={k} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

function CurlExample(): React.JSX.Element {
  const { settings, host, keys, createdKey } = useStore(
    useShallow((s) => ({ settings: s.settings, host: s.appInfo?.host, keys: s.keys, createdKey: s.createdKey }))
  )
  const base = apiBase(settings?.listener.url, settings?.settings.port, host === 'server' ? window.location.origin : null)
  // Keys a program may use: active, not a studio worker's. The one made last is chosen first.
  const usable = (keys ?? []).filter((k) => k.revoked_at === null && k.kind === 'client')
  const [chosenId, setChosenId] = useState<string | null>(null)
  const chosen = usable.find((k) => k.id === chosenId) ?? usable.find((k) => k.id === createdKey?.info.id) ?? usable[0] ?? null
  const text = chosen
    ? curlExample(base, { name: chosen.name, prefix: chosen.prefix, secret: createdKey?.info.id === chosen.id ? createdKey.key : null })
    : null
  return (
    <section className="card stack" aria-labelledby="curl-title">
      <div className="row">
        <h2 id="curl-title" className="grow flush">
          Try it with curl
        </h2>
        {text && <CopyButton text={text} />}
      </div>
      {chosen === null ? (
        <p className="muted small">Create a key above: the example uses it.</p>
      ) : (
        <>
          <label className="field">
            <span>Key</span>
            <select value={chosen.id} onChange={(e) => setChosenId(e.target.value)} data-testid="curl-key">
              {usable.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name ?? '(no name)'} · {k.prefix}…
                </option>
              ))}
            </select>
          </label>
          <pre className="code mono" data-testid="curl-example">
            {text}
          </pre>
          <p className="muted small">
            Paste it in a terminal, in a folder with a <span className="mono">photo.jpg</span>: it uploads the photo, asks for its status
            once a second until it has ended, and saves the cut-out as <span className="mono">photo.cut-out.png</span>.{' '}
            {createdKey?.info.id === chosen.id
              ? 'The key is written in it: keep the example to yourself.'
              : 'A key is shown only when it is made, so the terminal asks for it (it is not shown as you paste it).'}
          </p>
        </>
      )}
      <p className="muted small">
        The full reference is in docs/api.md and at <span className="mono">{base}/api/v1/openapi.json</span>.
      </p>
    </section>
  )
}

export default function Api(): React.JSX.Element {
  useEffect(() => {
    void useStore.getState().loadSettings()
    void useStore.getState().loadKeys()
  }, [])
  return (
    <div className="stack api-screen">
      <h1>API</h1>
      <Listener />
      <Keys />
      <Workers />
      <CurlExample />
    </div>
  )
}
