/**
 * The Electron shell: one window, the IPC handlers of the shared contract, and the
 * `clipdesk-result:` protocol that serves result files to the renderer. All job work
 * happens in the engine, which knows nothing of Electron.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { app, BrowserWindow, ipcMain, net, protocol, session, type IpcMainInvokeEvent } from 'electron'
import { VARIATIONS, type Variation } from '../shared/api'
import { IPC_METHODS, ipcChannel, type IpcHandlers } from '../shared/ipc'
import { Engine } from './engine/engine'
import { createIpcApi, RESULT_PROTOCOL } from './ipc/handlers'

app.setName('Clipdesk')
protocol.registerSchemesAsPrivileged([{ scheme: RESULT_PROTOCOL, privileges: { standard: true, secure: true, supportFetchAPI: true } }])

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  `img-src 'self' data: blob: ${RESULT_PROTOCOL}:`,
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'"
].join('; ')

let mainWindow: BrowserWindow | null = null

/** Only our own window's main frame may call the API. */
function fromOurWindow(event: IpcMainInvokeEvent): boolean {
  return mainWindow !== null && event.sender === mainWindow.webContents && event.senderFrame === mainWindow.webContents.mainFrame
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1200,
    height: 800,
    show: false,
    title: 'Clipdesk',
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true
    }
  })
  win.once('ready-to-show', () => win.show())
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }))
  win.webContents.on('will-navigate', (event) => event.preventDefault())
  if (process.env.ELECTRON_RENDERER_URL) void win.loadURL(process.env.ELECTRON_RENDERER_URL)
  else void win.loadFile(join(import.meta.dirname, '../renderer/index.html'))
  return win
}

async function main(): Promise<void> {
  await app.whenReady()
  const engine = new Engine({ dataDir: app.getPath('userData') })
  engine.start()
  const api = createIpcApi(engine)

  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } })
  })
  protocol.handle(RESULT_PROTOCOL, (request) => {
    const match = /^[a-z-]+:\/\/results\/([0-9a-f-]{36})\/([A-Za-z]+)\.([a-z]+)$/.exec(request.url)
    const variation = match?.[2] as Variation | undefined
    const record = match && variation && VARIATIONS.includes(variation) ? engine.result(match[1]!, variation, match[3]!) : null
    if (!record) return new Response('not found', { status: 404 })
    return net.fetch(pathToFileURL(record.path).toString())
  })
  for (const name of IPC_METHODS) {
    ipcMain.handle(ipcChannel(name), (event, arg) => {
      if (!fromOurWindow(event)) throw new Error('refused: not the app window')
      return (api[name] as (a: unknown) => ReturnType<IpcHandlers[typeof name]>)(arg)
    })
  }
  // Progress is pushed, never polled over IPC.
  engine.on('job', (e) => mainWindow?.webContents.send(ipcChannel('job'), e))

  mainWindow = createWindow()
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow()
  })
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })
  app.on('will-quit', () => void engine.stop())
  app.on('web-contents-created', (_e, contents) => {
    contents.on('will-attach-webview', (event) => event.preventDefault())
  })
}

void main()
