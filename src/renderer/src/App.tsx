import { useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import type { Screen } from '../../shared/app'
import { filesFromDrop } from './lib/files'
import { listenOnWindow } from './lib/window-events'
import Api from './screens/api/Api'
import Batches from './screens/batches/Batches'
import Connect from './screens/connect/Connect'
import Presets from './screens/presets/Presets'
import Settings from './screens/settings/Settings'
import WatchedFolders from './screens/watch/WatchedFolders'
import { useStore } from './store'
import { signOut } from './store/connect'

const SCREENS: Array<{ id: Screen; label: string }> = [
  { id: 'batches', label: 'Batches' },
  { id: 'presets', label: 'Presets' },
  { id: 'watch', label: 'Watched folders' },
  { id: 'api', label: 'API' },
  { id: 'settings', label: 'Settings' }
]

/** The theme on <html>: the chosen one, or the system's. */
function useTheme(): void {
  const theme = useStore((s) => s.theme)
  useEffect(() => {
    const media = window.matchMedia('(prefers-color-scheme: dark)')
    const apply = (): void => {
      document.documentElement.dataset.theme = theme === 'system' ? (media.matches ? 'dark' : 'light') : theme
    }
    apply()
    media.addEventListener('change', apply)
    return () => media.removeEventListener('change', apply)
  }, [theme])
}

/** Files and folders dropped anywhere on the window are staged for a new batch. */
function useWindowDrop(enabled: boolean): boolean {
  const [over, setOver] = useState(false)
  useEffect(() => {
    if (!enabled) return
    let depth = 0
    const hasFiles = (e: DragEvent): boolean => Array.from(e.dataTransfer?.types ?? []).includes('Files')
    const enter = (e: DragEvent): void => {
      if (!hasFiles(e)) return
      depth++
      setOver(true)
    }
    const leave = (e: DragEvent): void => {
      if (!hasFiles(e)) return
      depth = Math.max(0, depth - 1)
      if (depth === 0) setOver(false)
    }
    const overHandler = (e: DragEvent): void => {
      if (!hasFiles(e)) return
      e.preventDefault() // allows the drop (and stops the browser from opening the file)
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy'
    }
    const drop = (e: DragEvent): void => {
      if (!hasFiles(e) || !e.dataTransfer) return
      e.preventDefault()
      depth = 0
      setOver(false)
      void filesFromDrop(e.dataTransfer.items).then((files) => {
        if (files.length > 0) useStore.getState().stage(files)
        else useStore.setState({ batchError: 'No images in what was dropped (PNG, JPEG, WebP, GIF, AVIF, TIFF, PSD, SVG).' })
      })
    }
    return listenOnWindow({ dragenter: enter, dragleave: leave, dragover: overHandler, drop })
  }, [enabled])
  return over
}

function CurrentScreen({ screen }: { screen: Screen }): React.JSX.Element {
  switch (screen) {
    case 'batches':
      return <Batches />
    case 'presets':
      return <Presets />
    case 'watch':
      return <WatchedFolders />
    case 'api':
      return <Api />
    case 'settings':
      return <Settings />
  }
}

/**
 * The server's event stream is down (the browser app of `clipdesk serve`): said plainly, with
 * what is left, rather than a small "Reconnecting…" beside batches that still look running.
 */
function ServerGone({ left }: { left: number }): React.JSX.Element {
  return (
    <div className="server-gone" role="alert" data-testid="server-gone">
      <b>Clipdesk stopped</b> or cannot be reached
      {left > 0
        ? `; ${left} ${left === 1 ? 'file' : 'files'} will continue when it is back (Resume on the batch).`
        : '. This page reconnects when it is back.'}
    </div>
  )
}

export function App(): React.JSX.Element {
  const { connection, screen, host, eventsLive, version, left } = useStore(
    useShallow((s) => ({
      connection: s.connection,
      screen: s.screen,
      host: s.appInfo?.host,
      eventsLive: s.eventsLive,
      version: s.appInfo?.version,
      left: s.batches.reduce((n, b) => n + b.counts.waiting + b.counts.running, 0)
    }))
  )
  useTheme()
  const dragging = useWindowDrop(connection === 'ready')
  useEffect(() => {
    // Presets feed the batch form; load them once connected.
    if (connection === 'ready') void useStore.getState().loadPresets()
  }, [connection])

  if (connection === 'starting') return <div className="empty">Starting…</div>
  if (connection === 'needsKey') return <Connect />
  return (
    <div className="app">
      <nav className="nav" aria-label="Screens">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" /> Clipdesk
        </div>
        {SCREENS.map((s) => (
          <button
            key={s.id}
            type="button"
            className="nav-item"
            aria-current={screen === s.id ? 'page' : undefined}
            onClick={() => useStore.getState().setScreen(s.id)}
            data-testid={`nav-${s.id}`}
          >
            {s.label}
          </button>
        ))}
        <div className="spacer" />
        <div className="foot">
          {!eventsLive && <span className="warn">Reconnecting…</span>}
          <span>
            {host === 'server' ? 'Browser · clipdesk serve' : 'Desktop app'}
            {version ? ` · ${version}` : ''}
          </span>
          {host === 'server' && (
            <button type="button" className="btn small" onClick={signOut}>
              Sign out
            </button>
          )}
        </div>
      </nav>
      <main className="main">
        {!eventsLive && <ServerGone left={left} />}
        <CurrentScreen screen={screen} />
      </main>
      {dragging && <div className="drop-overlay">Drop to add to a new batch</div>}
    </div>
  )
}
