/** Placeholder window until the batches screen lands: shows whether the engine answers. */
export function App(): React.JSX.Element {
  const bridge = typeof window !== 'undefined' && window.api ? 'connected to the engine' : 'no engine bridge (browser)'
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', padding: 32 }}>
      <h1>Clipdesk</h1>
      <p>{bridge}</p>
      <p>Use the command line for now: <code>npx clipdesk process &lt;folder&gt; --out &lt;dir&gt;</code></p>
    </main>
  )
}
