import { ApiError } from './api-error'
import type { HttpServerPort } from '../engine/ports'
import type { AppBridgeOptions } from './app-bridge'
import { appRoutes } from './app-bridge'
import { apiRoutes } from './api-routes'
import { isAllowedHost } from './guard'
import { InFlightBytes } from './in-flight'
import type { RateFloor } from './read-body'
import { jobsRoutes } from './jobs-routes'
import { ownerCheck } from './owner-token'
import { removeBgError, removeBgRoutes } from './removebg/route'
import { nothingAt, serveRoutes, type Route } from './route-table'
// The studio protocol over HTTP is the studio feature's own transport: it speaks studio's types, unlike the app's transports.
import type { StudioCoordinator } from '../studio/coordinator'
import { studioRoutes, workerKey } from './studio-routes'
import { apiServer, keyCheck, listen, type HttpListener } from './listen'
import { processConnectionBudget, type ConnectionBudget } from './connection-cap'

export type { HttpListener } from './listen'

export interface HttpServerOptions {
  /** @default 7878; 0 picks a free port */
  port?: number
  /** The app bridge and the renderer (`clipdesk serve`); see app-bridge.ts. @default none */
  app?: AppBridgeOptions
  /**
   * Upload bytes all requests together may hold in memory at once; past it 503 `unavailable`.
   * @default 4 × the upload size limit + 1 MB (201 MB)
   */
  maxInFlightUploadBytes?: number
  /**
   * What one API key's uploads may hold of that at once; past it that key's next upload gets 503.
   * @default one whole upload: the upload size limit + 1 MB
   */
  maxInFlightUploadBytesPerKey?: number
  /** The slowest a request body may arrive (408 `request_timeout` under it). @default 8 KiB/s over 10 s */
  bodyRateFloor?: RateFloor
  /**
   * A connection with no traffic either way for this long is closed: a client that stops
   * reading its answer (or sending its body) holds nothing for longer. @default 30 s
   */
  idleTimeoutMs?: number
  /** A request's headers must arrive within this long (docs/api.md §15). @default 20 s */
  headersTimeoutMs?: number
  /** Studio mode: the coordinator whose workers call `/api/v1/studio/*`. @default none */
  studio?: StudioCoordinator
  /** The owner token a local command sends to upload as the owner (`owner-token.ts`). @default none */
  ownerToken?: string
  /** The connection caps (connection-cap.ts). @default the process's, shared by all its listeners */
  connections?: ConnectionBudget
}

/**
 * The optional local HTTP listener of `/api/v1`. A factory taking the engine: it parses
 * and authenticates requests and hands them to `engine.upload()` / `engine.status()`;
 * it holds no job state of its own. Binds 127.0.0.1 only. Its routes are one table
 * (route-table.ts): `/api/v1` (api-routes.ts, jobs-routes.ts), `/v1.0` (removebg/route.ts),
 * the studio's (studio-routes.ts) and the app bridge's (app-bridge.ts).
 */
export async function startHttpServer(engine: HttpServerPort, opts: HttpServerOptions = {}): Promise<HttpListener> {
  const inFlight = new InFlightBytes(
    opts.maxInFlightUploadBytes ?? 4 * engine.options.maxUploadBytes + 1024 * 1024,
    // One whole upload: the upload size limit and its text parts.
    opts.maxInFlightUploadBytesPerKey ?? engine.options.maxUploadBytes + 1024 * 1024
  )
  let port = 0

  const authenticate = keyCheck(engine)
  const isOwner = ownerCheck(opts.ownerToken)
  const connections = opts.connections ?? processConnectionBudget()
  const floor = opts.bodyRateFloor

  const routes: Route[] = [
    ...apiRoutes({ engine, inFlight, floor, connections, table: () => routes }),
    ...jobsRoutes({ engine, floor }),
    ...removeBgRoutes({ engine, inFlight, floor }),
    ...(opts.studio ? studioRoutes({ engine, coordinator: opts.studio, floor }) : []),
    ...(opts.app ? appRoutes(opts.app) : []),
    nothingAt('/api/*', 'public', 'none', 'ours')
  ]
  const handle = serveRoutes({
    routes,
    floor,
    before(req) {
      if (!isAllowedHost(req.headers.host, port)) {
        // Refused before anything else, auth included (DNS rebinding guard).
        throw new ApiError('forbidden_host', `Host "${req.headers.host ?? ''}" is not allowed; use 127.0.0.1:${port} or localhost:${port}.`)
      }
    },
    base: (req) => `http://${req.headers.host}`,
    keys: {
      none: () => null,
      signed: () => null,
      client: (req) => authenticate(req),
      'client-or-owner': (req) => (isOwner(req) ? null : authenticate(req)),
      owner(req) {
        if (isOwner(req)) return null
        const keyId = authenticate(req)
        if (!engine.key(keyId)?.admin) {
          throw new ApiError('forbidden', 'This API key cannot use the app; use an owner key (clipdesk keys create --admin).')
        }
        return keyId
      },
      worker: workerKey(authenticate)
    },
    removeBgError: removeBgError(engine)
  })

  const server = apiServer(handle, { idleTimeoutMs: opts.idleTimeoutMs, headersTimeoutMs: opts.headersTimeoutMs, connections })
  const listener = await listen(server, opts.port ?? 7878, '127.0.0.1')
  port = listener.port
  return { ...listener, routes }
}
