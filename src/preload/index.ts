/**
 * Exposes exactly the typed contract of src/shared/ipc.ts as `window.api`; no raw ipcRenderer.
 * Built as CommonJS because sandboxed preloads cannot load ES modules.
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron'
import { IPC_EVENTS, IPC_METHODS, ipcChannel, START_DRAG_CHANNEL, type ClipdeskApi, type IpcEvent, type IpcEventMap } from '../shared/ipc'

const methods = Object.fromEntries(IPC_METHODS.map((name) => [name, (arg: unknown) => ipcRenderer.invoke(ipcChannel(name), arg)]))

const api = {
  ...methods,
  on<E extends IpcEvent>(event: E, listener: (payload: IpcEventMap[E]) => void): () => void {
    if (!(IPC_EVENTS as readonly string[]).includes(event)) throw new Error(`unknown event ${String(event)}`)
    const wrapped = (_e: IpcRendererEvent, payload: IpcEventMap[E]): void => listener(payload)
    ipcRenderer.on(ipcChannel(event), wrapped)
    return () => ipcRenderer.off(ipcChannel(event), wrapped)
  },
  startDrag(target) {
    ipcRenderer.send(START_DRAG_CHANNEL, target)
  },
  // Sandboxed pages see no file paths; drag-and-drop of files and folders needs them.
  pathForFile(file: File): string {
    try {
      return webUtils.getPathForFile(file)
    } catch {
      return ''
    }
  }
} as ClipdeskApi

contextBridge.exposeInMainWorld('api', api)
