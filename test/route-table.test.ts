/**
 * The route table (src/main/http/route-table.ts) and the documents made from it: every public
 * route is in `/api/v1/openapi.json` with its method and nothing else is; a path no route has is
 * 404 in the shape of where it is (ours under /api, remove.bg's under /v1.0); a wrong method is
 * 405 with `Allow`. Over a real listener with the app bridge on a real socket.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { openApiPaths } from '../src/main/http/openapi'
import type { Route } from '../src/main/http/route-table'
import { Router } from '../src/main/http/router'
import type { HttpListener } from '../src/main/http/server'
import { startAppServer } from './helpers/app-server'
import { tempDir } from './helpers/engine'
import { json } from './helpers/http'

let root: string
let engine: Engine
let batches: BatchService
let http: HttpListener
let key: string

beforeAll(async () => {
  root = tempDir('clipdesk-table-')
  engine = new Engine({ dataDir: join(root, 'data') })
  batches = new BatchService(engine)
  ;({ http } = await startAppServer(root, engine, batches))
  key = engine.createKey({ credits: 5 }).key
})

afterAll(async () => {
  await http.close()
  await batches.stop()
  await engine.stop()
  rmSync(root, { recursive: true, force: true })
})

const openApiPath = (path: string): string => path.replace(/:([a-z_]+)/g, '{$1}')

describe('the generated document', () => {
  it('has every public route with its method, and no other', async () => {
    const doc = await json(await fetch(`${http.url}/api/v1/openapi.json`))
    const routes = http.routes!.filter((r) => r.method !== '*')
    const published = routes.filter((r) => r.audience === 'public')
    expect(published.length).toBeGreaterThanOrEqual(10)
    const inDoc = Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`)
    )
    expect(inDoc.sort()).toEqual(published.map((r) => `${r.method} ${openApiPath(r.path)} ${r.doc!.operationId}`).sort())
    // The app bridge's routes are in the table, unpublished.
    expect(routes.some((r) => r.audience === 'app' && r.path === '/api/app/events')).toBe(true)
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/api/app'))).toBe(false)
    // Every operation answers 405 for another method.
    for (const item of Object.values(doc.paths as Record<string, Record<string, { responses: object }>>)) {
      for (const op of Object.values(item)) expect(op.responses).toHaveProperty('405')
    }
  })

  it('cannot be made for a public route without its operation, or whose operation does not answer its schema', () => {
    const bare: Route = { method: 'GET', path: '/api/v1/x', audience: 'public', key: 'none', handle: () => {} }
    expect(() => openApiPaths([bare])).toThrow('has no OpenAPI operation')
    const wrong: Route = { ...bare, answer: 'JobList', doc: { operationId: 'x', responses: { '200': { description: 'no schema' } } } }
    expect(() => openApiPaths([wrong])).toThrow('does not answer its schema JobList')
  })
})

describe('a path or method no route has', () => {
  it('is 404 in our shape under /api and elsewhere', async () => {
    for (const path of ['/api/v1/nope', '/api/app/nope', '/nope', `/api/v1/results/x/clipping.png`]) {
      const res = await fetch(`${http.url}${path}`, { headers: { 'X-API-Key': key } })
      expect(res.status, path).toBe(404)
      expect((await json(res)).error.code, path).toBe('not_found')
    }
  })

  it("is 404 in remove.bg's shape under /v1.0", async () => {
    const res = await fetch(`${http.url}/v1.0/nope`, { method: 'POST', headers: { 'X-Api-Key': key } })
    expect(res.status).toBe(404)
    const body = await json(res)
    expect(body.error).toBeUndefined()
    expect(body.errors[0].code).toBe('not_found')
  })

  it('is 405 with Allow for a wrong method, in the shape of the path', async () => {
    const ours = await fetch(`${http.url}/api/v1/status`, { method: 'POST', headers: { 'X-API-Key': key } })
    expect(ours.status).toBe(405)
    expect(ours.headers.get('allow')).toBe('GET')
    expect((await json(ours)).error.code).toBe('method_not_allowed')
    const theirs = await fetch(`${http.url}/v1.0/removebg`, { headers: { 'X-Api-Key': key } })
    expect(theirs.status).toBe(405)
    expect(theirs.headers.get('allow')).toBe('POST')
    expect((await json(theirs)).errors[0].code).toBe('method_not_allowed')
  })
})

describe('the matcher', () => {
  const route = (method: string, path: string, params?: Route['params']) => ({ method, path, params })

  it('prefers an exact segment, then a tested parameter, then the rest', () => {
    const r = new Router([
      route('GET', '/a/b'),
      route('GET', '/a/:id', { id: (s) => /^[0-9]+$/.test(s) }),
      route('*', '/a/*'),
      route('DELETE', '/c/:id')
    ])
    expect(r.find('GET', '/a/b')).toMatchObject({ route: { path: '/a/b' }, params: {} })
    expect(r.find('GET', '/a/12')).toMatchObject({ route: { path: '/a/:id' }, params: { id: '12' } })
    expect(r.find('GET', '/a/x')).toMatchObject({ route: { path: '/a/*' } })
    expect(r.find('GET', '/c/1')).toMatchObject({ allowed: ['DELETE'] })
    expect(r.find('GET', '/d')).toBeNull()
  })

  it('refuses a route declared twice', () => {
    expect(() => new Router([route('GET', '/a'), route('GET', '/a')])).toThrow('declared twice')
  })
})
