import { useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { Empty, ErrorNote } from '../../components/common'
import { useStore } from '../../store'
import { followWatchEvents } from '../../store/watchSlice'
import { FolderCard } from './FolderCard'
import { FolderForm } from './FolderForm'
import { TouchUp } from '../../components/touchup/TouchUp'

/**
 * Watched folders (docs/watch.md): every folder with its state, counts (waiting, processing, done,
 * failed) and recent activity; add, edit, pause/resume, remove; failed files with retry; done
 * files to touch up (the batches' editor).
 * Live through the pushed `watch` event.
 */
export default function WatchedFolders(): React.JSX.Element {
  const { folders, error, eventsLive, touchUpKey } = useStore(
    useShallow((s) => ({
      folders: s.watchFolders,
      error: s.watchError,
      eventsLive: s.eventsLive,
      touchUpKey: s.touchUp?.target.kind === 'watch' ? s.touchUp.key : null
    }))
  )
  const [editing, setEditing] = useState<string | 'new' | null>(null)
  useEffect(() => {
    const release = followWatchEvents((e) => useStore.getState().applyWatchEvent(e))
    if (useStore.getState().presets === null) void useStore.getState().loadPresets()
    return release
  }, [])
  // Loaded on entry, and again whenever the event stream (re)opens: events missed while it was down.
  useEffect(() => {
    if (eventsLive) void useStore.getState().loadWatch()
  }, [eventsLive])
  const editedFolder = editing && editing !== 'new' ? (folders?.find((f) => f.id === editing) ?? null) : null

  return (
    <div className="stack">
      <div className="row">
        <h1 className="grow flush">Watched folders</h1>
        <button type="button" className="btn primary" onClick={() => setEditing('new')} data-testid="watch-add">
          Add folder
        </button>
      </div>
      <ErrorNote message={error} onDismiss={() => useStore.setState({ watchError: null })} testId="watch-error" />
      {editing !== null && (editing === 'new' || editedFolder) && (
        <FolderForm key={editing} editing={editing === 'new' ? null : editedFolder} onDone={() => setEditing(null)} />
      )}
      {folders === null ? (
        <span className="muted">Loading…</span>
      ) : folders.length === 0 ? (
        editing === null && (
          <div className="card">
            <Empty title="No watched folders yet">
              Add a folder: every photo that lands in it is cut out into its output folder, once it is completely written.
            </Empty>
          </div>
        )
      ) : (
        folders.map((f) => <FolderCard key={f.id} folder={f} onEdit={() => setEditing(f.id)} />)
      )}
      {touchUpKey && <TouchUp key={touchUpKey} />}
    </div>
  )
}
