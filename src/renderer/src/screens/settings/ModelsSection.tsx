import { useCallback, useEffect, useState } from 'react'
import { DEVICES, KNOWN_MODEL_IDS, sessionSummary, type ModelInfo, type ModelTestRun } from '../../../../shared/models'
import { ErrorNote } from '../../components/common'
import { errorText, transport } from '../../transport'

const mb = (n: number): string => `${(n / 1e6).toFixed(0)} MB`

function deviceText(m: ModelInfo): string {
  if (m.activeDevice) return m.deviceWarning ? `${m.activeDevice} (fallback)` : m.activeDevice
  return `${m.plannedDevice}${m.device === 'auto' ? ' (auto)' : ''}`
}

/**
 * Settings → Models: the registry (size, licence, device), the device setting, the default
 * model, a test run on a sample image with its time, and adding a model file by picker or
 * drop (by path in the app; in a browser, by a path on the machine that runs `clipdesk serve`).
 */
export default function ModelsSection(): React.JSX.Element {
  const [models, setModels] = useState<ModelInfo[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState<string | null>(null)
  const [tests, setTests] = useState<Record<string, ModelTestRun>>({})
  const [name, setName] = useState('')
  const [as, setAs] = useState('')
  const [serverPath, setServerPath] = useState('')
  const inApp = transport().kind === 'ipc'

  const refresh = useCallback(async (): Promise<void> => {
    try {
      setModels(await transport().modelsList())
    } catch (err) {
      setError(errorText(err))
    }
  }, [])
  useEffect(() => {
    void refresh()
  }, [refresh])

  const act = async (label: string, work: () => Promise<unknown>): Promise<void> => {
    setBusy(label)
    setError(null)
    try {
      await work()
    } catch (err) {
      setError(errorText(err))
    } finally {
      setBusy(null)
      await refresh()
    }
  }

  const add = (path: string): Promise<void> =>
    act('add', async () => {
      const r = await transport().modelsAdd({ file: { path }, name: name.trim() || undefined, as: as || undefined })
      setTests((t) => ({ ...t, [r.model.name]: r.test }))
      setName('')
    })

  const addFile = (file: File | undefined): void => {
    if (!file) return
    const path = window.api?.pathForFile(file) ?? ''
    if (!path) {
      setError('This file has no path on disk; save it to a folder and pick it from there.')
      return
    }
    void add(path)
  }

  const device = models?.[0]?.device ?? 'auto'
  const warning = models?.find((m) => m.deviceWarning)?.deviceWarning

  return (
    <section className="card stack" aria-labelledby="models-title" data-testid="models">
      <h2 id="models-title">Models</h2>
      <label className="field device-field">
        <span>Device</span>
        <select
          value={device}
          disabled={busy !== null}
          onChange={(e) => void act('device', () => transport().modelsSetDevice(e.target.value))}
          data-testid="model-device"
        >
          {DEVICES.map((d) => (
            <option key={d} value={d}>
              {d === 'auto' ? 'auto (GPU when available, else CPU)' : d === 'wasm' ? 'wasm (WebAssembly on the CPU, slower)' : d}
            </option>
          ))}
        </select>
      </label>
      {warning && (
        <div className="notice small" role="status" data-testid="device-warning">
          {warning}
        </div>
      )}
      <ErrorNote message={error} onDismiss={() => setError(null)} />
      {models && (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Kind</th>
              <th>Size</th>
              <th>Device</th>
              <th>Licence</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {models.map((m) => (
              <tr key={m.name} data-testid={`model-${m.name}`}>
                <td>
                  <strong>{m.name}</strong>
                  {m.isDefault && <span className="muted small"> (default)</span>}
                </td>
                <td className="small">
                  {m.family} · {m.inputSize[0]}×{m.inputSize[1]}
                  {m.dynamic ? ' dynamic' : ''} · {m.speedClass}
                </td>
                <td className="small">{mb(m.bytes)}</td>
                <td className="small">
                  {deviceText(m)}
                  {m.session && (
                    <div
                      className="muted"
                      data-testid={`model-session-${m.name}`}
                      title={`${m.session.cpu.model}: ${m.session.cpu.physical ?? '?'} cores, ${m.session.cpu.logical} threads; ${m.session.cpu.simd.join(' ')}`}
                    >
                      {sessionSummary(m.session)}
                    </div>
                  )}
                </td>
                <td className="small">{m.licence}</td>
                <td>
                  <div className="row">
                    <button
                      type="button"
                      className="btn small"
                      disabled={busy !== null}
                      onClick={() =>
                        void act(`test ${m.name}`, async () => {
                          const r = await transport().modelsTest(m.name)
                          setTests((t) => ({ ...t, [m.name]: r }))
                        })
                      }
                    >
                      {busy === `test ${m.name}` ? 'Testing…' : 'Test'}
                    </button>
                    {!m.isDefault && (
                      <button
                        type="button"
                        className="btn small"
                        disabled={busy !== null}
                        onClick={() => void act('default', () => transport().modelsSetDefault(m.name))}
                      >
                        Make default
                      </button>
                    )}
                    {!m.builtin && (
                      <button
                        type="button"
                        className="btn small"
                        disabled={busy !== null}
                        onClick={() => void act('remove', () => transport().modelsRemove(m.name))}
                      >
                        Remove
                      </button>
                    )}
                  </div>
                  {tests[m.name] && (
                    <div className="muted small" data-testid={`model-test-${m.name}`}>
                      Sample: {tests[m.name]!.inferenceMs} ms on {tests[m.name]!.device}
                      {tests[m.name]!.deviceWarning ? ` — ${tests[m.name]!.deviceWarning}` : ''}
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="row">
        <label className="field">
          <span>Name (optional)</span>
          <input type="text" value={name} onChange={(e) => setName(e.target.value)} placeholder="from the file name" />
        </label>
        <label className="field">
          <span>Model file is</span>
          <select value={as} onChange={(e) => setAs(e.target.value)}>
            <option value="">recognised from the file</option>
            {KNOWN_MODEL_IDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
      </div>
      {inApp ? (
        // biome-ignore lint/a11y/noStaticElementInteractions: dropping a file here is a pointer shortcut; the "Add an ONNX model…" picker inside does the same from the keyboard
        <div
          className="dropzone"
          onDragOver={(e) => e.preventDefault()}
          onDrop={(e) => {
            e.preventDefault()
            addFile(e.dataTransfer.files[0])
          }}
        >
          <label className="btn">
            {busy === 'add' ? 'Adding and test-running…' : 'Add an ONNX model…'}
            <input type="file" accept=".onnx" hidden disabled={busy !== null} onChange={(e) => addFile(e.target.files?.[0])} />
          </label>
          <span className="muted small"> or drop an .onnx file here</span>
        </div>
      ) : (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault()
            if (serverPath.trim()) void add(serverPath.trim())
          }}
        >
          <label className="field">
            <span>Path of an .onnx file on the machine running clipdesk serve</span>
            <input type="text" className="mono" value={serverPath} onChange={(e) => setServerPath(e.target.value)} />
          </label>
          <button type="submit" className="btn" disabled={busy !== null || !serverPath.trim()}>
            {busy === 'add' ? 'Adding…' : 'Add'}
          </button>
        </form>
      )}
      <p className="muted small">
        Adding loads the model and runs it once on a sample; a file that does not match its descriptor is refused with the shapes expected
        and found. One model is kept in memory at a time. See docs/models.md.
      </p>
    </section>
  )
}
