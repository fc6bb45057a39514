/**
 * The app bridge of `clipdesk serve`: lets the renderer, running in a browser, call the same
 * app methods as over IPC, and serves the renderer itself.
 *
 * - `POST /api/app/<method>`: JSON body = the method's one argument; answer = its result.
 *   Owner (admin) keys only: these methods manage batches, settings and keys.
 * - `GET /api/app/events`: the IPC events as Server-Sent Events (`event: <name>`,
 *   `data: <json>`), owner keys only. Read with fetch (EventSource cannot send X-API-Key).
 * - `GET /api/app/files/<item>/<kind>?v=&expires=&sig=`: an item's thumbnail or before/after
 *   image, signed like result addresses so an <img> can load it without the key.
 * - `GET /api/app/download/…` and `/api/app/download-batch/….zip`: a result or a batch's zip
 *   (`app-downloads.ts`), signed the same way.
 * - `GET /` and `/assets/*`: the built renderer (out/renderer), with a strict CSP.
 *
 * Everything sits behind the listener's Host check. No CORS headers: another origin can
 * neither read answers nor send the X-API-Key header (that needs a preflight we never allow).
 */
import { rendererCsp } from '../../shared/csp'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, join, resolve } from 'node:path'
import { imageMimeOf } from '../../shared/image-types'
import { IPC_METHODS, type IpcHandlers, type IpcMethod } from '../../shared/ipc'
import { isPreviewKind } from '../../shared/previews'
import type { AppEvents, AppFiles, PreviewAddress } from '../app-api/files'
import type { AppBridgePort } from '../engine/ports'
import { ApiError } from './api-error'
import { isStrictlyInside } from '../engine/file-helpers'
import { sendJson } from './respond'
import { downloadRoutes } from './app-downloads'
import type { Route } from './route-table'
import { idSegment } from './router'

/** What the bridge serves: the app API's methods, files and events (made by `composeServices`), and the engine for keys and signatures. */
export interface AppBridgeOptions {
  handlers: IpcHandlers
  engine: AppBridgePort
  /** Previews and written files, for the signed file and download addresses. */
  files: AppFiles
  /** The app's events, for `/api/app/events`. */
  events: AppEvents
  /** Folder of the built renderer (index.html, assets/); absent: no UI served. */
  rendererDir?: string
}

/** Methods the bridge does not take: upload and status have their own /api/v1 endpoints. */
const NOT_BRIDGED = new Set<IpcMethod>(['upload', 'status'])
const MAX_BODY_BYTES = 8 * 1024 * 1024
const HEARTBEAT_MS = 25_000
/** While a method runs, the first keep-alive probe after this long without traffic. */
const KEEPALIVE_PROBE_MS = 15_000

/** The renderer in a browser: only its own files, no inline scripts, no framing. */
export const RENDERER_CSP = rendererCsp()

/** The renderer's files that are not images; an image's type is the one list's (`shared/image-types.ts`). */
const STATIC_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2'
}

/** Signed, same-origin preview addresses; stable for an hour so browsers can cache them. */
export function signedPreviewAddress(engine: AppBridgePort): PreviewAddress {
  return (itemId, kind, version) => {
    const hour = 3600
    const expires = Math.ceil((Date.now() / 1000 + engine.options.retentionMs / 1000) / hour) * hour
    const sig = engine.signAddress(itemId, `app-${kind}`, expires)
    return `/api/app/files/${itemId}/${kind}?v=${encodeURIComponent(version)}&expires=${expires}&sig=${sig}`
  }
}

/**
 * The app bridge's routes (`owner` key: an owner key or the owner token), the signed file and
 * download addresses, and the renderer's files for any other GET outside `/api/`.
 */
export function appRoutes(opts: AppBridgeOptions): Route[] {
  const bridged = new Set<string>(IPC_METHODS.filter((m) => !NOT_BRIDGED.has(m)))
  const routes: Route[] = [
    ...downloadRoutes(opts),
    {
      method: 'GET',
      path: '/api/app/files/:item/:kind',
      params: { item: idSegment, kind: (s) => /^[a-z-]+$/.test(s) },
      audience: 'app',
      key: 'signed',
      async handle({ res, url, params }) {
        const itemId = params.item!
        const kind = params.kind!
        const expires = Number(url.searchParams.get('expires'))
        if (!isPreviewKind(kind) || !opts.engine.verifyAddress(itemId, `app-${kind}`, expires, url.searchParams.get('sig') ?? '')) {
          throw new ApiError('invalid_signature', 'The image address is not validly signed, or it expired.')
        }
        const found = await opts.files.previewFile(itemId, kind)
        if (!found) throw new ApiError('not_found', 'This image is not available.')
        const info = await stat(found)
        res.writeHead(200, {
          'Content-Type': 'image/webp',
          'Content-Length': info.size,
          'Cache-Control': 'private, max-age=3600',
          'X-Content-Type-Options': 'nosniff'
        })
        createReadStream(found)
          .on('error', () => res.destroy())
          .pipe(res)
      }
    },
    {
      method: 'GET',
      path: '/api/app/events',
      audience: 'app',
      key: 'owner',
      handle({ res }) {
        res.writeHead(200, {
          'Content-Type': 'text/event-stream; charset=utf-8',
          'Cache-Control': 'no-store',
          'X-Content-Type-Options': 'nosniff',
          Connection: 'keep-alive'
        })
        res.write(': connected\n\n')
        const stop = opts.events((event, payload) => {
          res.write(`event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`)
        })
        const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS)
        heartbeat.unref()
        res.on('close', () => {
          clearInterval(heartbeat)
          stop()
        })
      }
    },
    {
      method: 'POST',
      path: '/api/app/:method',
      // A name that is no bridged method is no route: 404.
      params: { method: (s) => bridged.has(s) },
      audience: 'app',
      key: 'owner',
      body: { reader: 'json', limit: MAX_BODY_BYTES },
      async handle({ req, res, params, body }) {
        const handler = opts.handlers[params.method as IpcMethod] as (a: unknown) => Promise<unknown>
        const result = await workingUntilAnswered(req, () => handler(body))
        sendJson(res, 200, result === undefined ? null : result)
      }
    }
  ]
  if (opts.rendererDir) {
    const root = opts.rendererDir
    routes.push({
      method: 'GET',
      path: '/*',
      audience: 'app',
      key: 'none',
      async handle({ res, url }) {
        if (!(await serveStatic(root, url.pathname, res))) throw new ApiError('not_found', `No endpoint at ${url.pathname}.`)
      }
    })
  }
  return routes
}

/**
 * Runs a method with the connection's idle limit lifted: a method may take longer than that
 * limit with nothing to send (a touch-up's Save waits for its job behind the queue), and a
 * connection cut then would answer "empty reply" while the method still runs and applies. The
 * body is all read by now (the limit has done its work against slow senders) and the caller is
 * an owner key. TCP keep-alive finds a caller that went away meanwhile; the limit is back for
 * the answer (a caller that stops reading it is cut as before).
 */
async function workingUntilAnswered<T>(req: IncomingMessage, run: () => Promise<T>): Promise<T> {
  const socket = req.socket
  const limit = socket.timeout ?? 0
  socket.setTimeout(0)
  socket.setKeepAlive(true, KEEPALIVE_PROBE_MS)
  try {
    return await run()
  } finally {
    if (!socket.destroyed) socket.setTimeout(limit)
  }
}

async function serveStatic(root: string, path: string, res: ServerResponse): Promise<boolean> {
  let rel: string
  try {
    rel = decodeURIComponent(path === '/' ? '/index.html' : path)
  } catch {
    return false
  }
  const base = resolve(root)
  const target = resolve(join(base, rel))
  if (!isStrictlyInside(base, target) || rel.includes('\0')) return false
  const info = await stat(target).catch(() => null)
  if (!info?.isFile()) return false
  res.writeHead(200, {
    'Content-Type': STATIC_TYPES[extname(target).toLowerCase()] ?? imageMimeOf(target) ?? 'application/octet-stream',
    'Content-Length': info.size,
    'Cache-Control': 'no-cache',
    'Content-Security-Policy': RENDERER_CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer'
  })
  createReadStream(target).pipe(res)
  return true
}
