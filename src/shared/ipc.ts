/**
 * The IPC contract: one channel map from which main registers handlers, the preload exposes
 * `window.api`, and the renderer takes its types. Same request/response shapes as HTTP.
 */
import type { StatusResponse, UploadFields, UploadResponse } from './api'

/** A file handed over IPC: by path (drag-and-drop) or by bytes (file picker in a sandbox). */
export type IpcFile =
  | { path: string }
  | { bytes: Uint8Array; name?: string; type?: string }

export interface IpcUploadRequest extends UploadFields {
  file?: IpcFile
}

/** Invoke channels: name → [argument, result]. */
export interface IpcInvokeMap {
  'api:upload': [IpcUploadRequest, UploadResponse]
  'api:status': [string, StatusResponse]
}

export type IpcChannel = keyof IpcInvokeMap

export const IPC_CHANNELS = {
  upload: 'api:upload',
  status: 'api:status'
} as const satisfies Record<string, IpcChannel>

/** What the preload exposes as `window.api`: exactly the contract, nothing raw. */
export interface ClipdeskApi {
  upload(request: IpcUploadRequest): Promise<UploadResponse>
  status(jobId: string): Promise<StatusResponse>
}
