/**
 * The path matcher of the route table (`route-table.ts`): exact segments, `:name` segments
 * (optionally checked by a test of the segment's text) and a trailing `*`. It only picks a route;
 * the request and its socket stay Node's own, as the hardening needs (body reader, drains,
 * deadlines, streams). Written here rather than taken from a package: the table has about forty
 * routes and needs nothing more. The path is split on `/` and compared segment by segment; a
 * `:name` test sees one segment (the tests are simple patterns without backtracking).
 *
 * Precedence, segment by segment: an exact segment, then a `:name` segment whose test passes, then
 * `*`. A path whose best match has no route for the method answers 405 with the methods it has.
 */

/** A `:name` segment's test: a segment that fails it does not match (the path goes on to `*` or 404). */
export type ParamTest = (segment: string) => boolean

/** A segment of the form of our ids (a UUID's characters and length): jobs, items, batches. */
export const idSegment: ParamTest = (s) => /^[0-9a-f-]{36}$/.test(s)

export interface Routable {
  /** An HTTP method, or `*` for any. */
  method: string
  /** `/api/v1/jobs/:job_id`; a last segment `*` takes the rest of the path. */
  path: string
  params?: Record<string, ParamTest>
}

interface Node<R> {
  exact: Map<string, Node<R>>
  param: Array<{ name: string; test: ParamTest | undefined; node: Node<R> }>
  rest: Node<R> | null
  routes: R[]
}

const node = <R>(): Node<R> => ({ exact: new Map(), param: [], rest: null, routes: [] })

export type Match<R> = { route: R; params: Record<string, string> } | { allowed: string[]; routes: R[] } | null

export class Router<R extends Routable> {
  private readonly root: Node<R> = node()

  constructor(routes: readonly R[] = []) {
    for (const r of routes) this.add(r)
  }

  add(route: R): void {
    let at = this.root
    for (const segment of route.path.split('/').slice(1)) {
      if (segment === '*') {
        at.rest ??= node()
        at = at.rest
      } else if (segment.startsWith(':')) {
        const name = segment.slice(1)
        const test = route.params?.[name]
        let next = at.param.find((p) => p.name === name && p.test === test)
        if (!next) {
          next = { name, test, node: node() }
          at.param.push(next)
        }
        at = next.node
      } else {
        let next = at.exact.get(segment)
        if (!next) {
          next = node()
          at.exact.set(segment, next)
        }
        at = next
      }
    }
    if (at.routes.some((r) => r.method === route.method)) throw new Error(`route declared twice: ${route.method} ${route.path}`)
    at.routes.push(route)
  }

  /** The route for `method` on `path`; the methods the path has when none is for `method`; null when no route has the path. */
  find(method: string, path: string): Match<R> {
    const params: Record<string, string> = {}
    const found = this.walk(this.root, path.split('/').slice(1), 0, params)
    if (!found) return null
    const route = found.routes.find((r) => r.method === method) ?? found.routes.find((r) => r.method === '*')
    if (route) return { route, params }
    return { allowed: found.routes.map((r) => r.method), routes: found.routes }
  }

  private walk(at: Node<R>, segments: string[], i: number, params: Record<string, string>): Node<R> | null {
    if (i === segments.length) return at.routes.length > 0 ? at : null
    const segment = segments[i]!
    const exact = at.exact.get(segment)
    const viaExact = exact && this.walk(exact, segments, i + 1, params)
    if (viaExact) return viaExact
    for (const p of at.param) {
      if (p.test && !p.test(segment)) continue
      const via = this.walk(p.node, segments, i + 1, params)
      if (via) {
        params[p.name] = segment
        return via
      }
    }
    return at.rest?.routes.length ? at.rest : null
  }
}
