/**
 * What every HTTP listener of the engine shares: the API-key check (with its bad-key
 * limiter), the error path (our error body; a small body read before a key refusal), the
 * timeouts, and binding. The public `/api/v1` listener (server.ts) and the studio workers'
 * listener (worker-listener.ts) are built from it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ApiError } from './api-error'
import type { KeyCheckPort, KeyKind } from '../engine/ports'
import { errorResponse } from './error-response'
import { processConnectionBudget, type ConnectionBudget } from './connection-cap'
import { BadKeyLimiter, limiterClient } from './guard'
import { enforceHeaderDeadline } from './header-deadline'
import { discardRest, rememberSocket } from './read-body'
import { answerClientError, sendJson } from './respond'

import type { Route } from './route-table'

export type { KeyKind }
/** Checks the request's X-API-Key for a key of `kind`; returns the key id or throws 401/403/429. */
export type Authenticate = (req: IncomingMessage, kind?: KeyKind) => string

export function keyCheck(engine: KeyCheckPort): Authenticate {
  const limiter = new BadKeyLimiter()
  return (req, kind = 'client') => {
    const client = limiterClient(req.socket.remoteAddress)
    const wait = limiter.retryAfter(client)
    const given = req.headers['x-api-key']
    const secret = typeof given === 'string' ? given : ''
    const key = secret ? engine.authenticate(secret) : null
    if (key) {
      // A worker key only takes work and returns results; a client key cannot act as a worker.
      if (key.kind !== kind) {
        throw new ApiError(
          'forbidden',
          kind === 'worker'
            ? 'This endpoint needs a worker key (clipdesk keys create --worker).'
            : 'A worker key can only take work and return results.'
        )
      }
      return key.id
    }
    if (wait > 0) {
      throw new ApiError('rate_limited', 'Too many requests with a bad API key; wait before trying again.', {
        retryAfterSeconds: wait
      })
    }
    limiter.fail(client)
    throw new ApiError('unauthorized', secret ? 'The API key is not valid.' : 'The X-API-Key header is missing.')
  }
}

export function sendError(res: ServerResponse, err: unknown, jobId?: string): void {
  const { status, body, headers } = errorResponse(err, jobId)
  sendJson(res, status, body, headers)
}

export interface ServerTimeouts {
  /**
   * A connection with no traffic either way for this long is closed: a client that stops
   * reading its answer (or sending its body) holds nothing for longer. @default 30 s
   */
  idleTimeoutMs?: number
  /** A request's headers must have arrived this long after the connection opened or fell idle. @default 20 s */
  headersTimeoutMs?: number
  /** The connection caps it counts against (connection-cap.ts). @default the process's, shared by all listeners */
  connections?: ConnectionBudget
}

/** A server whose handler's throws become our error answers. */
export function apiServer(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>, timeouts: ServerTimeouts = {}): Server {
  const { idleTimeoutMs = 30_000, headersTimeoutMs = 20_000 } = timeouts
  const server = createServer((req, res) => {
    rememberSocket(req)
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy()
        return
      }
      // A request refused before or while its body was read (a bad key, no such endpoint, a
      // body past its limit, a budget full, a sender too slow): the answer goes out at once,
      // and what the client still sends is dropped, up to a bound, before the connection is
      // closed (read-body.ts), so that a client still sending reads the answer, not a reset.
      discardRest(req)
      sendError(res, err)
    })
  })
  server.requestTimeout = 120_000
  server.headersTimeout = headersTimeoutMs
  // Node checks headersTimeout only every 30 s: a timer per connection holds the limit.
  enforceHeaderDeadline(server, headersTimeoutMs)
  // With no 'timeout' listener, Node destroys a socket idle this long (either direction).
  server.setTimeout(idleTimeoutMs)
  server.on('clientError', answerClientError)
  // Before the process runs out of file descriptors, new connections are closed instead.
  ;(timeouts.connections ?? processConnectionBudget()).watch(server)
  return server
}

export interface HttpListener {
  server: Server
  port: number
  url: string
  /** The route table it serves (route-table.ts). */
  routes?: readonly Route[]
  close(): Promise<void>
}

/** Binds `server` to host:port and resolves once it listens. */
export async function listen(server: Server, port: number, host: string): Promise<HttpListener> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const bound = (server.address() as AddressInfo).port
  const shown = host.includes(':') ? `[${host}]` : host
  return {
    server,
    port: bound,
    url: `http://${shown}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}
