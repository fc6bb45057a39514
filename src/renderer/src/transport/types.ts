import type { BatchFileRef, BatchRequest } from '../../../shared/batches'
import { type ErrorDetail, errorText as messageOf } from '../../../shared/errors'
import type { IpcEvent, IpcEventMap, IpcHandlers } from '../../../shared/ipc'
import type { ResultTarget } from '../../../shared/results'

/**
 * How the renderer reaches the engine: `window.api` (IPC) in the app, HTTP against
 * `clipdesk serve` in a browser. Both implement the contract's `IpcHandlers`, so store
 * actions are written once; only the few things that differ by nature are extra members.
 */
export interface Transport extends IpcHandlers {
  readonly kind: 'ipc' | 'http'
  on<E extends IpcEvent>(event: E, listener: (payload: IpcEventMap[E]) => void): () => void
  /**
   * A dropped or picked file as a batch reference: its path in the app (or its bytes when it
   * has none); in a browser it is uploaded through `/api/v1/upload` with the batch's request.
   */
  fileRef(file: File, relPath: string, request: BatchRequest): Promise<BatchFileRef>
  /** Drags a written result out of the window into another application (the app only). */
  startDrag?(target: ResultTarget): void
}

/** A refused call, with the same code/message/details as the API's error body. */
export class AppError extends Error {
  readonly code: string
  readonly details: ErrorDetail[]
  readonly status: number | null

  constructor(error: { code: string; message: string; details?: ErrorDetail[] }, status: number | null = null) {
    super(error.message)
    this.name = 'AppError'
    this.code = error.code
    this.details = error.details ?? []
    this.status = status
  }
}

/** A readable one-line message for any thrown value: an app error's details after its message. */
export function errorText(err: unknown): string {
  if (err instanceof AppError && err.details.length > 0) {
    return `${err.message} ${err.details.map((d) => `${d.field}: ${d.issue}`).join('; ')}`
  }
  return messageOf(err)
}
