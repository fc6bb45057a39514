/**
 * Exposes exactly the typed contract of src/shared/ipc.ts as `window.api`; no raw ipcRenderer.
 * Built as CommonJS because sandboxed preloads cannot load ES modules.
 */
import { contextBridge, ipcRenderer } from 'electron'
import { IPC_CHANNELS, type ClipdeskApi } from '../shared/ipc'

const api: ClipdeskApi = {
  upload: (request) => ipcRenderer.invoke(IPC_CHANNELS.upload, request),
  status: (jobId) => ipcRenderer.invoke(IPC_CHANNELS.status, jobId)
}

contextBridge.exposeInMainWorld('api', api)
