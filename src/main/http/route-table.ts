/**
 * The route table: every listener's routes are declared once, as `Route` objects (api-routes.ts,
 * studio-routes.ts, app-bridge.ts), and served by `serveRoutes`, which applies the hardening that
 * depends on the route as middleware, each piece once and in one order:
 *
 *   1. the listener's own check (the API listener's Host check), before anything else;
 *   2. the match (router.ts): no route for the path → 404, none for the method → 405 with `Allow`;
 *   3. the route's key (`key`): checked before the method for worker routes, whose every answer
 *      needs the worker key, after it for the others;
 *   4. the body: a JSON body (`json`, `json-object`) is read here, through the one body reader
 *      (read-body.ts) within the route's `body` limit and the listener's rate floor, and handed to
 *      the handler; the other readers stream, reserve or meter, so their handler runs them with the
 *      same limit;
 *   5. the error shape (`errors`): ours (thrown to `apiServer`, listen.ts), or remove.bg's.
 *
 * The listener's timeouts, header deadline, connection caps and drains are `apiServer`'s (listen.ts),
 * under every route alike. The public routes carry their OpenAPI operation (`doc`), from which
 * `/api/v1/openapi.json` is generated (openapi.ts): a public route cannot exist without it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ApiError } from './api-error'
import { discardRest, readJson, readJsonObject, type RateFloor } from './read-body'
import { Router, type ParamTest } from './router'

/**
 * Who may call a route: `none` (anyone; `signed` addresses check their signature in the handler),
 * `client` (a client key), `client-or-owner` (a client key or the owner token), `owner` (an owner
 * key or the owner token), `worker` (a worker key speaking this studio protocol).
 */
export type RouteKey = 'none' | 'signed' | 'client' | 'client-or-owner' | 'owner' | 'worker'

/** Who the route is for: `public` routes are in `/api/v1/openapi.json`; the app bridge's and the workers' are not published. */
export type Audience = 'public' | 'app' | 'worker'

/** The body a route reads, through the one body reader, and the most it takes (bytes). */
export interface BodySpec {
  reader: 'multipart' | 'json' | 'json-object' | 'removebg' | 'result'
  limit: number
}

export interface RouteCall {
  req: IncomingMessage
  res: ServerResponse
  url: URL
  params: Record<string, string>
  /** The key that called, by `key`; null for none or the owner token. */
  keyId: string | null
  /**
   * The JSON body, read by the table: any value (undefined when empty) for the `json` reader, an
   * object for `json-object`; undefined for the other readers.
   */
  body: unknown
}

export interface Route {
  /** An HTTP method; `*` for "any method", used only for a path's 404 (never published). */
  method: string
  /** `/api/v1/jobs/:job_id`; a last segment `*` matches the rest (router.ts). */
  path: string
  /** Tests of the `:name` segments: a segment failing its test is no match (404). */
  params?: Record<string, ParamTest>
  audience: Audience
  key: RouteKey
  body?: BodySpec
  /** The error body: ours (`{ error }`), or remove.bg's (`{ errors: [...] }`) under `/v1.0`. @default 'ours' */
  errors?: 'ours' | 'removebg'
  /** The component schema (openapi.ts) of the success answer, for a public route. */
  answer?: string
  /** The OpenAPI operation of a public route (its summary, parameters, body and answers). */
  doc?: Record<string, unknown> & { operationId: string; responses: Record<string, unknown> }
  handle(call: RouteCall): Promise<void> | void
}

/** A path that has no route for any method: 404 in the shape of `errors`. */
export function nothingAt(path: string, audience: Audience, key: RouteKey, errors: Route['errors'], message?: string): Route {
  return {
    method: '*',
    path,
    audience,
    key,
    errors,
    handle: ({ url }) => {
      throw new ApiError('not_found', message ?? `No endpoint at ${url.pathname}.`)
    }
  }
}

export interface ListenerRoutes {
  routes: Route[]
  /** Runs before the match (the API listener's Host check). */
  before?(req: IncomingMessage): void
  /** The URL base of a request (its Host for the API listener). */
  base(req: IncomingMessage): string
  /** The listener's floor on a body's rate, for the bodies the table reads. @default DEFAULT_RATE_FLOOR */
  floor?: RateFloor
  /** Each key kind's check: the key id, null for none or the owner; throws 401/403/429. */
  keys: Partial<Record<RouteKey, (req: IncomingMessage) => string | null>>
  /** Sends an error in remove.bg's shape (with the key's rate-limit headers when a key is known). */
  removeBgError?(res: ServerResponse, err: unknown, keyId: string | null): void
}

/** 405 with the methods the path has (`Allow`). */
function wrongMethod(allowed: string[], path: string): ApiError {
  const methods = allowed.join(', ')
  return new ApiError('method_not_allowed', `Use ${methods} on ${path}.`, { allowedMethods: allowed })
}

/** The body the table reads for `route` (JSON), within its limit; undefined for a reader its handler runs. */
function readDeclared(route: Route, req: IncomingMessage, floor: RateFloor | undefined): Promise<unknown> | undefined {
  if (route.body?.reader === 'json') return readJson(req, { limit: route.body.limit, floor })
  if (route.body?.reader === 'json-object') return readJsonObject(req, { limit: route.body.limit, floor })
  return undefined
}

/** The listener's request handler for its table; errors in our shape are thrown to `apiServer`. */
export function serveRoutes(listener: ListenerRoutes): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const router = new Router(listener.routes)
  const keyOf = (route: Route, req: IncomingMessage): string | null => {
    const check = listener.keys[route.key]
    if (!check) throw new Error(`no key check for ${route.key} on this listener`)
    return check(req)
  }
  return async (req, res) => {
    listener.before?.(req)
    const url = new URL(req.url ?? '/', listener.base(req))
    const found = router.find(req.method ?? 'GET', url.pathname)
    if (!found) throw new ApiError('not_found', `No endpoint at ${url.pathname}.`)
    const route = 'route' in found ? found.route : found.routes[0]!
    let keyId: string | null = null
    try {
      const keyFirst = route.key === 'worker'
      if (keyFirst) keyId = keyOf(route, req)
      if (!('route' in found)) throw wrongMethod(found.allowed, url.pathname)
      if (!keyFirst) keyId = keyOf(route, req)
      const body = await readDeclared(found.route, req, listener.floor)
      await found.route.handle({ req, res, url, params: found.params, keyId, body })
    } catch (err) {
      if (route.errors !== 'removebg' || !listener.removeBgError) throw err
      if (res.headersSent || res.destroyed) {
        res.destroy()
        return
      }
      // As apiServer does for ours: what the client still sends is read and dropped, up to a
      // bound, before the connection is closed, so that a client still sending reads the answer.
      discardRest(req)
      listener.removeBgError(res, err, keyId)
    }
  }
}
