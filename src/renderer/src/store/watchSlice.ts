import type { WatchEvent, WatchFolderView } from '../../../shared/watch'
import { hasTransport, transport } from '../transport'
import { run } from './run'
import type { WatchSlice, Slice } from './types'

function upsert(list: WatchFolderView[] | null, folder: WatchFolderView): WatchFolderView[] {
  const cur = list ?? []
  return cur.some((f) => f.id === folder.id) ? cur.map((f) => (f.id === folder.id ? folder : f)) : [...cur, folder]
}

export const createWatchSlice: Slice<WatchSlice> = (set, get) => ({
  watchFolders: null,
  watchError: null,

  async loadWatch() {
    await run(set, 'watchError', async () => {
      set({ watchFolders: await transport().watchList(), watchError: null })
    })
  },
  async addWatch(request) {
    const folder = await transport().watchAdd(request)
    set({ watchFolders: upsert(get().watchFolders, folder), watchError: null })
    return folder
  },
  async updateWatch(request) {
    const folder = await transport().watchUpdate(request)
    set({ watchFolders: upsert(get().watchFolders, folder), watchError: null })
    return folder
  },
  async removeWatch(id) {
    await run(set, 'watchError', async () => {
      await transport().watchRemove(id)
      set({ watchFolders: (get().watchFolders ?? []).filter((f) => f.id !== id), watchError: null })
    })
  },
  async setWatchPaused(id, paused) {
    await run(set, 'watchError', async () => {
      const folder = paused ? await transport().watchPause(id) : await transport().watchResume(id)
      set({ watchFolders: upsert(get().watchFolders, folder), watchError: null })
    })
  },
  async retryWatch(folderId, fileId) {
    await run(set, 'watchError', async () => {
      await transport().watchRetry(fileId === undefined ? { folder_id: folderId } : { folder_id: folderId, file_id: fileId })
    })
  },
  applyWatchEvent(e) {
    const list = get().watchFolders
    if (list === null) return // not loaded yet: the load brings the current state
    set({ watchFolders: e.folder ? upsert(list, e.folder) : list.filter((f) => f.id !== e.folder_id) })
  }
})

let subscribers = 0
let unsubscribe: (() => void) | null = null

/**
 * Follows the `watch` event while at least one screen needs it (module level, reference
 * counted: re-renders never subscribe twice). Returns the function that lets go.
 */
export function followWatchEvents(apply: (e: WatchEvent) => void): () => void {
  if (subscribers++ === 0 && hasTransport()) unsubscribe = transport().on('watch', apply)
  let released = false
  return () => {
    if (released) return
    released = true
    if (--subscribers === 0) {
      unsubscribe?.()
      unsubscribe = null
    }
  }
}
