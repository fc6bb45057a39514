/**
 * The IPC contract: one map from which main registers its handlers, the preload exposes
 * `window.api`, and the renderer takes its types. Upload and status have the same
 * request/response shapes as HTTP. Each method takes one argument (an object when it needs
 * several values) so that the bridge stays generic and typed.
 */
import type { StatusResponse, UploadFields, UploadResponse } from './api'

/** A file handed over IPC: by path (drag-and-drop) or by bytes (file picker in a sandbox). */
export type IpcFile = { path: string } | { bytes: Uint8Array; name?: string; type?: string }

export interface IpcUploadRequest extends UploadFields {
  file?: IpcFile
}

/** Invoke methods: name → [argument, result]. Add a feature's methods here. */
export interface IpcInvokeMap {
  upload: [IpcUploadRequest, UploadResponse]
  status: [string, StatusResponse]
}

/** Events pushed from main to the renderer: name → payload. */
export interface IpcEventMap {
  job: { job_id: string; status: string; progress: number }
}

export type IpcMethod = keyof IpcInvokeMap
export type IpcEvent = keyof IpcEventMap

/** Every invoke method, for the generic bridge (checked against the map below). */
export const IPC_METHODS = ['upload', 'status'] as const satisfies readonly IpcMethod[]
export const IPC_EVENTS = ['job'] as const satisfies readonly IpcEvent[]

// Compile-time check that the list names every method of the map.
type Missing = Exclude<IpcMethod, (typeof IPC_METHODS)[number]>
const _allListed: Missing extends never ? true : never = true
void _allListed

/** The channel of a method or event on the wire. */
export const ipcChannel = (name: IpcMethod | IpcEvent): string => `clipdesk:${name}`

export type IpcHandlers = { [K in IpcMethod]: (arg: IpcInvokeMap[K][0]) => Promise<IpcInvokeMap[K][1]> }

/** What the preload exposes as `window.api`: exactly the contract, nothing raw. */
export type ClipdeskApi = IpcHandlers & {
  /** Subscribes to a pushed event; returns the unsubscribe function. */
  on<E extends IpcEvent>(event: E, listener: (payload: IpcEventMap[E]) => void): () => void
}
