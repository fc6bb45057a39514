/**
 * Module-level actions: connecting the store to its transport and subscribing to pushed
 * events (once, outside React, so re-renders never subscribe twice).
 */
import { appTransport, httpTransport, setTransport, errorText, AppError, type Transport } from '../transport'
import { useStore } from '.'

const KEY_STORAGE = 'clipdesk.apiKey'
let unsubscribe: (() => void) | null = null
let closeHttp: (() => void) | null = null

export function subscribeEvents(t: Transport): void {
  unsubscribe?.()
  const s = useStore.getState
  const offs = [
    t.on('batchItem', (item) => s().applyItem(item)),
    t.on('batch', (batch) => s().applyBatch(batch)),
    t.on('listener', (listener) => s().applyListener(listener)),
    t.on('navigate', ({ screen }) => s().setScreen(screen)),
    t.on('job', (e) => void s().applyPreviewJob(e)),
    t.on('workers', (view) => s().applyStudio(view))
  ]
  unsubscribe = () => {
    for (const off of offs) off()
  }
}

/** After (re)connecting: what every screen starts from. */
async function loadInitial(t: Transport): Promise<void> {
  const appInfo = await t.appInfo()
  const { draft } = useStore.getState()
  useStore.setState({
    appInfo,
    connection: 'ready',
    connectError: null,
    draft: draft.destination ? draft : { ...draft, destination: appInfo.defaultDestination }
  })
  await useStore.getState().loadBatches()
}

/** Starts the renderer: the app's IPC at once; in a browser, the stored key if there is one. */
export async function startApp(): Promise<void> {
  const t = appTransport()
  if (t) {
    setTransport(t)
    subscribeEvents(t)
    await loadInitial(t).catch((err: unknown) => useStore.setState({ connection: 'ready', batchError: errorText(err) }))
    return
  }
  let key: string | null = null
  try {
    key = localStorage.getItem(KEY_STORAGE)
  } catch {
    key = null
  }
  if (key) await connectWithKey(key)
  else useStore.setState({ connection: 'needsKey' })
}

/** A browser: checks the key against the server's app bridge, then keeps it (localStorage). */
export async function connectWithKey(key: string): Promise<boolean> {
  const t = httpTransport({
    key: key.trim(),
    onEventsOpen: () => {
      // The stream (re)opened: anything missed while it was down is read again.
      useStore.setState({ eventsLive: true })
      void useStore.getState().loadBatches()
    },
    onEventsClosed: () => useStore.setState({ eventsLive: false })
  })
  try {
    await t.appInfo()
  } catch (err) {
    t.close()
    const message =
      err instanceof AppError && err.code === 'unauthorized'
        ? 'This API key is not valid.'
        : err instanceof AppError && err.code === 'forbidden'
          ? 'This key may use the API but not the app: sign in with an owner key (clipdesk keys create --admin).'
          : errorText(err)
    useStore.setState({ connection: 'needsKey', connectError: message })
    return false
  }
  try {
    localStorage.setItem(KEY_STORAGE, key.trim())
  } catch {
    // private mode: the key lasts for this page only
  }
  closeHttp?.()
  closeHttp = () => t.close()
  setTransport(t)
  subscribeEvents(t)
  await loadInitial(t).catch((err: unknown) => useStore.setState({ batchError: errorText(err) }))
  return true
}

export function signOut(): void {
  try {
    localStorage.removeItem(KEY_STORAGE)
  } catch {
    // nothing stored
  }
  unsubscribe?.()
  unsubscribe = null
  closeHttp?.()
  closeHttp = null
  setTransport(null)
  useStore.setState({ connection: 'needsKey', connectError: null })
}
