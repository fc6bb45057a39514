/**
 * The Electron shell: one window, the IPC handlers of the shared contract, the
 * `clipdesk-result:` protocol that serves result files and batch previews to the renderer,
 * settings (electron-store), the optional local listener, and a tray/menu entry for the
 * queue. The services are composed by `compose-services.ts` (as for `clipdesk serve`) and know
 * nothing of Electron; the IPC transport is `ipc/electron-ipc.ts`.
 *
 * Security: contextIsolation + sandbox, no node integration, a strict CSP, navigation,
 * new windows, webviews and permission requests refused, and every IPC call checked to come
 * from our window's main frame. The renderer only ever sees `window.api` (the contract).
 */
import { rendererCsp } from '../shared/csp'
import { join } from 'node:path'
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  nativeImage,
  screen,
  session,
  shell,
  Tray,
  type IpcMainInvokeEvent,
  type MenuItemConstructorOptions
} from 'electron'
import type { AppSettings, ListenerStatus, Screen } from '../shared/app'
import { ipcChannel, START_DRAG_CHANNEL, type IpcEvent, type IpcEventMap } from '../shared/ipc'
import { createResultHandlers, type ResultHost } from './app-api/results'
import { dragHandler, type DragEvent } from './shell/drag'
import { applicationDialog, launchDetached, openWith } from './shell/open-with'
import { composeServices } from './compose-services'
import { newOwnerToken, removeOwnerNote, writeOwnerNote } from './owner-note'
import { DataDirBusy } from './engine/data-folder'
import { startHttpServer, type HttpListener } from './http/server'
import { appPreviewAddress, handleIpc, RESULT_PROTOCOL, registerResultScheme, serveResultProtocol } from './ipc/electron-ipc'
import { ElectronSettings } from './settings-electron'
import { TRAY_ICON_PNG_BASE64 } from './tray-icon'
import { queueText } from './tray-text'
import { defaultOutputDir } from './data-dir'
import { APP_VERSION } from './version'
import { errorText } from '../shared/errors'

app.setName('Clipdesk')
// One folder for settings and data, e.g. for tests: CLIPDESK_DATA_DIR (as for the CLI).
if (process.env.CLIPDESK_DATA_DIR) app.setPath('userData', process.env.CLIPDESK_DATA_DIR)
registerResultScheme()

const CSP = rendererCsp([`${RESULT_PROTOCOL}:`])

let mainWindow: BrowserWindow | null = null
let tray: Tray | null = null

/** Only our own window's main frame may call the API. */
function fromOurWindow(event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>): boolean {
  return mainWindow !== null && event.sender === mainWindow.webContents && event.senderFrame === mainWindow.webContents.mainFrame
}

/** Results that leave the app: Open with… (the system's chooser, or an application picked in a dialog) and Show in folder. */
const resultHost: ResultHost = {
  openWith: (path) =>
    openWith(path, {
      platform: process.platform,
      launch: launchDetached,
      async pickApplication() {
        // 'openFile' alone: a macOS .app bundle is then picked as one file.
        const options = { ...applicationDialog(process.platform), properties: ['openFile' as const] }
        const r = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options)
        return r.canceled ? null : (r.filePaths[0] ?? null)
      }
    }),
  showInFolder: (path) => shell.showItemInFolder(path)
}

function push<E extends IpcEvent>(event: E, payload: IpcEventMap[E]): void {
  if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(ipcChannel(event), payload)
}

function createWindow(settings: ElectronSettings): BrowserWindow {
  const saved = settings.windowState()
  // Only reuse the saved position when it is still on a screen (a monitor may be gone).
  const onScreen =
    saved.x !== undefined &&
    saved.y !== undefined &&
    screen
      .getAllDisplays()
      .some(
        ({ workArea: a }) =>
          saved.x! < a.x + a.width - 50 && saved.x! + saved.width > a.x + 50 && saved.y! >= a.y - 10 && saved.y! < a.y + a.height - 50
      )
  const win = new BrowserWindow({
    width: saved.width,
    height: saved.height,
    ...(onScreen ? { x: saved.x, y: saved.y } : {}),
    minWidth: 640,
    minHeight: 480,
    show: false,
    title: 'Clipdesk',
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false
    }
  })
  win.once('ready-to-show', () => {
    if (saved.maximized) win.maximize()
    win.show()
  })
  win.on('close', () => {
    const b = win.getNormalBounds()
    settings.saveWindowState({ x: b.x, y: b.y, width: b.width, height: b.height, maximized: win.isMaximized() })
  })
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }))
  win.webContents.on('will-navigate', (event) => event.preventDefault())
  win.webContents.on('will-redirect', (event) => event.preventDefault())
  if (process.env.ELECTRON_RENDERER_URL) void win.loadURL(process.env.ELECTRON_RENDERER_URL)
  else void win.loadFile(join(import.meta.dirname, '../renderer/index.html'))
  return win
}

function showScreen(screenName: Screen, settings: ElectronSettings): void {
  if (!mainWindow || mainWindow.isDestroyed()) mainWindow = createWindow(settings)
  if (mainWindow.isMinimized()) mainWindow.restore()
  mainWindow.show()
  mainWindow.focus()
  push('navigate', { screen: screenName })
}

function appMenu(settings: ElectronSettings): Menu {
  const go = (s: Screen) => () => showScreen(s, settings)
  const dev = !app.isPackaged && process.env.ELECTRON_RENDERER_URL !== undefined
  const template: MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    { label: 'File', submenu: [{ role: process.platform === 'darwin' ? 'close' : 'quit' }] },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { label: 'Batches (queue)', accelerator: 'CmdOrCtrl+1', click: go('batches') },
        { label: 'Presets', accelerator: 'CmdOrCtrl+2', click: go('presets') },
        { label: 'Watched folders', accelerator: 'CmdOrCtrl+3', click: go('watch') },
        { label: 'API', accelerator: 'CmdOrCtrl+4', click: go('api') },
        { label: 'Settings', accelerator: 'CmdOrCtrl+,', click: go('settings') },
        ...(dev ? [{ type: 'separator' as const }, { role: 'reload' as const }, { role: 'toggleDevTools' as const }] : [])
      ]
    },
    { role: 'windowMenu' }
  ]
  return Menu.buildFromTemplate(template)
}

async function main(): Promise<void> {
  const settings = new ElectronSettings()
  const startedWith = settings.get()
  await app.whenReady()

  const dataDir = startedWith.dataDir || app.getPath('userData')
  const engineOptions = {
    dataDir,
    role: 'app',
    concurrency: startedWith.concurrency ?? undefined,
    retentionMs: startedWith.retentionHours * 3600_000
  }
  // Studio mode (Settings: queue address): jobs go through the shared queue; the app stays their record.
  const services = composeServices(
    engineOptions,
    startedWith.queueUrl ? { queueUrl: startedWith.queueUrl, localWorker: startedWith.localWorker } : null
  )
  const { engine, batches, studio } = services
  try {
    // The engine, batches and watched folders: this process holds the data folder while it runs.
    await services.start()
  } catch (err) {
    // `clipdesk serve` or `clipdesk process` already runs on this data folder: one engine per folder.
    if (!(err instanceof DataDirBusy)) throw err
    dialog.showErrorBox('Clipdesk is already running on this data folder', err.message)
    app.exit(1)
    return
  }
  const outputDir = (): string => settings.get().outputDir || defaultOutputDir(app.getPath('pictures'))
  const address = appPreviewAddress

  // The optional local /api/v1 listener, started, stopped or moved when the settings change.
  let listener: HttpListener | null = null
  let listenerError: string | null = null
  const listenerStatus = (): ListenerStatus => ({
    running: listener !== null,
    url: listener?.url ?? null,
    error: listenerError,
    managed: true
  })
  // While it listens, `clipdesk process` on this data folder works through the app (owner-note.ts).
  const ownerToken = newOwnerToken()
  const applyListener = async (s: AppSettings): Promise<void> => {
    if (listener && (!s.listenerEnabled || listener.port !== s.port)) {
      removeOwnerNote(dataDir, ownerToken)
      await listener.close()
      listener = null
    }
    listenerError = null
    if (s.listenerEnabled && !listener) {
      try {
        listener = await startHttpServer(engine, { port: s.port, studio: studio ?? undefined, ownerToken })
        writeOwnerNote(dataDir, { pid: process.pid, url: listener.url, token: ownerToken, paused: false })
      } catch (err) {
        listenerError = `Cannot listen on 127.0.0.1:${s.port}: ${errorText(err)}`
      }
    }
    push('listener', listenerStatus())
  }

  const api = services.appApi(
    {
      host: 'app',
      version: APP_VERSION,
      settings,
      get effective() {
        return { dataDir, outputDir: outputDir() }
      },
      startedWith,
      listener: listenerStatus,
      applyListener,
      async pickFolder() {
        const options = { properties: ['openDirectory' as const, 'createDirectory' as const], defaultPath: outputDir() }
        const r = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options)
        return r.canceled ? null : (r.filePaths[0] ?? null)
      },
      openPath: (path) => shell.openPath(path),
      ...resultHost
    },
    address
  )

  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } })
  })
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false))
  serveResultProtocol(engine, services.files)
  handleIpc(api, fromOurWindow)
  // A result dragged out of the window: a send (the drag must start while the renderer's dragstart runs).
  const { dragFile } = createResultHandlers(batches, resultHost)
  const onDrag = dragHandler({
    trusted: (e) => fromOurWindow(e as unknown as Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>),
    resolve: dragFile,
    icon: (file) => {
      const image = nativeImage.createFromPath(file)
      return image.isEmpty() ? nativeImage.createFromBuffer(Buffer.from(TRAY_ICON_PNG_BASE64, 'base64')) : image.resize({ width: 64 })
    },
    refused: (message) => console.error(`clipdesk: ${message}`)
  })
  ipcMain.on(START_DRAG_CHANNEL, (event, target) => void onDrag(event as unknown as DragEvent, target))
  // Progress is pushed, never polled over IPC.
  services.events(address)(push)

  // The queue in the tray (where the desktop has one) and in the View menu.
  const refreshTray = (): void => {
    if (!tray) return
    const running = engine.activeCount()
    const waiting = engine.queuedCount() + batches.store.waitingCount()
    const text = queueText({ running, waiting }, batches.list()[0] ?? null)
    tray.setToolTip(text.tooltip)
    tray.setContextMenu(
      Menu.buildFromTemplate([{ label: text.menu, click: () => showScreen('batches', settings) }, { type: 'separator' }, { role: 'quit' }])
    )
  }
  let trayTimer: NodeJS.Timeout | null = null
  batches.on('batch', () => {
    trayTimer ??= setTimeout(() => {
      trayTimer = null
      refreshTray()
    }, 1000)
  })
  try {
    tray = new Tray(nativeImage.createFromBuffer(Buffer.from(TRAY_ICON_PNG_BASE64, 'base64')))
    tray.on('click', () => showScreen('batches', settings))
    refreshTray()
  } catch {
    tray = null // no tray on this desktop: the View menu still has the queue
  }
  Menu.setApplicationMenu(appMenu(settings))

  mainWindow = createWindow(settings)
  await applyListener(startedWith)

  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow(settings)
  })
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })
  // Stop cleanly before quitting: running jobs go back to the queue and resume next time.
  let stopped = false
  let stopping = false
  app.on('before-quit', (event) => {
    if (stopped) return
    event.preventDefault()
    if (trayTimer) clearTimeout(trayTimer)
    // Once: a second quit while stopping waits for the same stop.
    if (stopping) return
    stopping = true
    void (async () => {
      removeOwnerNote(dataDir, ownerToken)
      await listener?.close()
      await services.stop()
    })()
      .catch((err: unknown) => console.error('clipdesk: stopping failed:', err))
      .finally(() => {
        stopped = true
        app.quit()
      })
  })
}

// Before any window exists: no webviews, no new windows, from any web contents.
app.on('web-contents-created', (_e, contents) => {
  contents.on('will-attach-webview', (event) => event.preventDefault())
  contents.setWindowOpenHandler(() => ({ action: 'deny' }))
})

void main()
