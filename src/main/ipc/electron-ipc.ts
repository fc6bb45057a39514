/**
 * The Electron transport of the app API: every method of the shared contract on its IPC channel
 * (callable from our window's main frame only), the events pushed to the window, and the
 * `clipdesk-result:` protocol that serves result files and batch previews to the renderer
 * (it never gets `file://` addresses). Imported by the Electron shell only.
 */
import { pathToFileURL } from 'node:url'
import { ipcMain, net, protocol, type IpcMainInvokeEvent } from 'electron'
import { VARIATIONS, type Variation } from '../../shared/api'
import { IPC_METHODS, ipcChannel, type IpcErrorEnvelope, type IpcHandlers } from '../../shared/ipc'
import { isPreviewKind } from '../../shared/previews'
import { RESULT_PROTOCOL } from '../app-api/engine-handlers'
import type { AppFiles, PreviewAddress } from '../app-api/files'
import { errorBody } from '../app-api/answers'
import type { ResultFilesPort } from '../engine/ports'
import { EngineError } from '../engine/errors'
import { errorText } from '../../shared/errors'

export { RESULT_PROTOCOL }

/** How the renderer addresses an item's previews in the app. */
export const appPreviewAddress: PreviewAddress = (itemId, kind, version) =>
  `${RESULT_PROTOCOL}://items/${itemId}/${kind}?v=${encodeURIComponent(version)}`

/** Before the app is ready: the result protocol is a standard, secure scheme that fetch may use. */
export function registerResultScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: RESULT_PROTOCOL, privileges: { standard: true, secure: true, supportFetchAPI: true } }])
}

/** Serves result files and batch previews on the result protocol. */
export function serveResultProtocol(engine: ResultFilesPort, files: Pick<AppFiles, 'previewFile'>): void {
  protocol.handle(RESULT_PROTOCOL, async (request) => {
    const url = new URL(request.url)
    if (url.host === 'items') {
      const [, itemId, kind] = url.pathname.split('/')
      const file = itemId && kind && isPreviewKind(kind) ? await files.previewFile(itemId, kind) : null
      return file ? net.fetch(pathToFileURL(file).toString()) : new Response('not found', { status: 404 })
    }
    const match = /^[a-z-]+:\/\/results\/([0-9a-f-]{36})\/([A-Za-z]+)\.([a-z]+)$/.exec(request.url)
    const variation = match?.[2] as Variation | undefined
    const record = match && variation && VARIATIONS.includes(variation) ? engine.result(match[1]!, variation, match[3]!) : null
    if (!record) return new Response('not found', { status: 404 })
    return net.fetch(pathToFileURL(record.path).toString())
  })
}

/** Answers every method of the contract on its channel; `trusted` says whether a call comes from our window's main frame. */
export function handleIpc(api: IpcHandlers, trusted: (event: IpcMainInvokeEvent) => boolean): void {
  for (const name of IPC_METHODS) {
    ipcMain.handle(ipcChannel(name), async (event, arg): Promise<unknown> => {
      if (!trusted(event)) throw new Error('refused: not the app window')
      try {
        return await (api[name] as (a: unknown) => ReturnType<IpcHandlers[typeof name]>)(arg)
      } catch (err) {
        // The renderer is the owner: it may see the message of an unexpected error too.
        const body = errorBody(err)
        if (!(err instanceof EngineError)) console.error(`clipdesk: ${name} failed:`, err)
        const envelope: IpcErrorEnvelope = {
          ipcError: err instanceof EngineError ? body.error : { ...body.error, message: errorText(err) }
        }
        return envelope
      }
    })
  }
}
