import type { StatusResponse, UploadResponse } from '../../../shared/api'
import { type ErrorBody, errorText } from '../../../shared/errors'
import { IPC_EVENTS, IPC_METHODS, type IpcEvent, type IpcEventMap, type IpcHandlers } from '../../../shared/ipc'
import type { IpcUploadRequest } from '../../../shared/ipc-upload'
import { mimeOf } from '../lib/files'
import { AppError, type Transport } from './types'

export interface HttpTransportOptions {
  /** An owner API key (the app bridge refuses others). */
  key: string
  /** Origin of `clipdesk serve`; '' for the page's own. */
  base?: string
  /** Told when the event stream opens (again): the store then re-reads what it shows. */
  onEventsOpen?(): void
  /** Told when the event stream dropped (it is reopened after a moment). */
  onEventsClosed?(): void
}

const RECONNECT_MS = 2000

function uploadForm(request: IpcUploadRequest): FormData | null {
  const { file, ...fields } = request
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue
    form.append(name, typeof value === 'string' ? value : JSON.stringify(value))
  }
  if (!file) return form
  if (!('bytes' in file)) return null
  form.append(
    'file',
    new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.type ?? 'application/octet-stream' }),
    file.name ?? 'image'
  )
  return form
}

/**
 * The renderer in a browser against `clipdesk serve`: the contract over HTTP.
 * `upload`/`status` use the public `/api/v1` endpoints (same `{status, body}` as IPC);
 * every other method is `POST /api/app/<method>` with the argument as JSON; events come as
 * Server-Sent Events from `GET /api/app/events`, read with fetch so the key stays in a header.
 */
export function httpTransport(opts: HttpTransportOptions): Transport & { close(): void } {
  const base = opts.base ?? ''
  const headers = { 'X-API-Key': opts.key }

  async function answer<T>(res: Response): Promise<{ status: number; body: T }> {
    const text = await res.text()
    try {
      return { status: res.status, body: JSON.parse(text) as T }
    } catch {
      return {
        status: res.status,
        body: { error: { code: 'internal_error', message: `Unexpected answer (${res.status}) from the server.` } } as T
      }
    }
  }

  async function call(method: string, arg: unknown): Promise<unknown> {
    let res: Response
    try {
      res = await fetch(`${base}/api/app/${method}`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: arg === undefined ? '' : JSON.stringify(arg)
      })
    } catch (err) {
      throw new AppError({ code: 'unavailable', message: `The server cannot be reached: ${errorText(err)}` })
    }
    const { status, body } = await answer<unknown>(res)
    if (!res.ok) throw new AppError((body as ErrorBody).error ?? { code: 'internal_error', message: `HTTP ${status}` }, status)
    return body
  }

  const engineMethods: Pick<IpcHandlers, 'upload' | 'status'> = {
    async upload(request): Promise<UploadResponse> {
      const form = uploadForm(request)
      if (!form) return { status: 400, body: { error: { code: 'malformed_request', message: 'A browser cannot send a file by path.' } } }
      const hasFile = request.file !== undefined
      const res = await fetch(`${base}/api/v1/upload`, {
        method: 'POST',
        headers: hasFile ? headers : { ...headers, 'Content-Type': 'application/json' },
        body: hasFile ? form : JSON.stringify(Object.fromEntries(Object.entries(request).filter(([k]) => k !== 'file')))
      })
      return answer(res)
    },
    async status(jobId): Promise<StatusResponse> {
      const res = await fetch(`${base}/api/v1/status?job_id=${encodeURIComponent(jobId)}`, { headers })
      return answer(res)
    }
  }
  const appMethods = Object.fromEntries(
    IPC_METHODS.filter((m) => m !== 'upload' && m !== 'status').map((m) => [m, (arg: unknown) => call(m, arg)])
  )

  // ---- events ----
  const listeners = new Map<IpcEvent, Set<(payload: never) => void>>()
  let stream: AbortController | null = null
  let closed = false

  const dispatch = (event: string, data: string): void => {
    if (!(IPC_EVENTS as readonly string[]).includes(event)) return
    let payload: unknown
    try {
      payload = JSON.parse(data)
    } catch {
      return
    }
    for (const l of listeners.get(event as IpcEvent) ?? []) (l as (p: unknown) => void)(payload)
  }

  const connect = (): void => {
    if (closed || stream) return
    const controller = new AbortController()
    stream = controller
    void (async () => {
      try {
        const res = await fetch(`${base}/api/app/events`, { headers, signal: controller.signal })
        if (!res.ok || !res.body) throw new Error(`events: HTTP ${res.status}`)
        opts.onEventsOpen?.()
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
        let buffer = ''
        for (;;) {
          const { value, done } = await reader.read()
          if (done) break
          buffer += value
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            let event = 'message'
            const data: string[] = []
            for (const line of block.split('\n')) {
              if (line.startsWith('event:')) event = line.slice(6).trim()
              else if (line.startsWith('data:')) data.push(line.slice(5).trimStart())
            }
            if (data.length > 0) dispatch(event, data.join('\n'))
          }
        }
      } catch {
        // dropped or refused: try again below
      } finally {
        if (stream === controller) stream = null
        if (!closed && !controller.signal.aborted) {
          opts.onEventsClosed?.()
          setTimeout(connect, RECONNECT_MS)
        }
      }
    })()
  }

  return {
    ...(appMethods as unknown as Omit<IpcHandlers, 'upload' | 'status'>),
    ...engineMethods,
    kind: 'http',
    on<E extends IpcEvent>(event: E, listener: (payload: IpcEventMap[E]) => void): () => void {
      let set = listeners.get(event)
      if (!set) {
        set = new Set()
        listeners.set(event, set)
      }
      set.add(listener as (payload: never) => void)
      connect()
      return () => set.delete(listener as (payload: never) => void)
    },
    async fileRef(file, relPath, request) {
      const res = await engineMethods.upload({
        mode: request.mode,
        output_format: request.output_format,
        ...(request.params !== null ? { params: request.params } : {}),
        file: { bytes: new Uint8Array(await file.arrayBuffer()), name: relPath.split('/').pop() ?? 'image', type: mimeOf(file) }
      })
      if (res.status !== 202 || !('job_id' in res.body)) {
        throw new AppError('error' in res.body ? res.body.error : { code: 'internal_error', message: 'upload refused' }, res.status)
      }
      return { job_id: res.body.job_id, rel_path: relPath }
    },
    close() {
      closed = true
      stream?.abort()
    }
  }
}
