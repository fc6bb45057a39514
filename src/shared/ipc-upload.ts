/**
 * An upload as the app hands it over IPC: the /api/v1 fields and the file. Its own file, below
 * `ipc.ts` (the method table) and `presets.ts` (whose preview is such an upload), so that
 * neither loops back to the other. No Node, no DOM.
 */
import type { UploadFields } from './api'

/** A file handed over IPC: by path (drag-and-drop) or by bytes (file picker in a sandbox). */
export type IpcFile = { path: string } | { bytes: Uint8Array; name?: string; type?: string }

export interface IpcUploadRequest extends UploadFields {
  file?: IpcFile
}
