import { IPC_METHODS, isIpcErrorEnvelope, type ClipdeskApi, type IpcHandlers } from '../../../shared/ipc'
import { AppError, type Transport } from './types'

/** The app: every method goes to `window.api`; an error envelope from main becomes an AppError. */
export function ipcTransport(api: ClipdeskApi): Transport {
  const methods = Object.fromEntries(
    IPC_METHODS.map((name) => [
      name,
      async (arg: unknown) => {
        const result = await (api[name] as (a: unknown) => Promise<unknown>)(arg)
        if (isIpcErrorEnvelope(result)) throw new AppError(result.ipcError)
        return result
      }
    ])
  ) as unknown as IpcHandlers
  return {
    ...methods,
    kind: 'ipc',
    on: (event, listener) => api.on(event, listener),
    startDrag: (target) => api.startDrag(target),
    async fileRef(file, relPath) {
      const path = api.pathForFile(file)
      if (path) return { path, rel_path: relPath }
      return { bytes: new Uint8Array(await file.arrayBuffer()), rel_path: relPath, type: file.type || undefined }
    }
  }
}
