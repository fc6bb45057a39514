/**
 * The app bridge of `clipdesk serve` over real sockets: owner keys only, the same handlers
 * as IPC, Server-Sent Events, signed preview addresses, and the renderer's static files with
 * a strict CSP, all behind the listener's Host check and without CORS.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { signedPreviewAddress } from '../src/main/http/app-bridge'
import type { HttpListener } from '../src/main/http/server'
import { runCli } from './helpers/cli'
import { startAppServer } from './helpers/app-server'
import { tempDir } from './helpers/engine'

let root: string
let engine: Engine
let batches: BatchService
let http: HttpListener
let owner: string
let plain: string

beforeAll(async () => {
  root = tempDir('clipdesk-bridge-')
  const rendererDir = join(root, 'renderer')
  mkdirSync(join(rendererDir, 'assets'), { recursive: true })
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Clipdesk</title>')
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)')
  writeFileSync(join(root, 'secret.txt'), 'outside the renderer')
  engine = new Engine({ dataDir: join(root, 'data') })
  batches = new BatchService(engine)
  batches.start()
  ;({ http } = await startAppServer(root, engine, batches, { rendererDir }))
  owner = engine.createKey({ credits: null, name: 'owner', admin: true }).key
  plain = engine.createKey({ credits: 5, name: 'script' }).key
})

afterAll(async () => {
  await http.close()
  await batches.stop()
  await engine.stop()
  rmSync(root, { recursive: true, force: true })
})

function call(method: string, arg: unknown, key: string | null = owner) {
  return fetch(`${http.url}/api/app/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(key ? { 'X-API-Key': key } : {}) },
    body: arg === undefined ? '' : JSON.stringify(arg)
  })
}

/** A raw GET with any Host header (fetch would not let a test set it). */
function rawGet(path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: http.port, path, headers: { Host: host } }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end()
  })
}

describe('app bridge', () => {
  it('lets only owner keys call app methods', async () => {
    expect((await call('keysList', undefined, null)).status).toBe(401)
    const refused = await call('keysList', undefined, plain)
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ error: { code: 'forbidden' } })
    expect((await call('keysCreate', { name: 'sneaky', admin: true }, plain)).status).toBe(403)

    const res = await call('keysList', undefined)
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    const keys = (await res.json()) as Array<{ name: string; admin: boolean }>
    expect(keys.map((k) => [k.name, k.admin])).toEqual([
      ['owner', true],
      ['script', false]
    ])
  })

  it('creates a key shown once, and revokes it', async () => {
    const created = (await (await call('keysCreate', { name: 'tool', credits: 3 })).json()) as {
      key: string
      info: { id: string; credits: number }
    }
    expect(created.key).toMatch(/^cdk_/)
    expect(created.info.credits).toBe(3)
    const status = (key: string) => fetch(`${http.url}/api/v1/status?job_id=x`, { headers: { 'X-API-Key': key } }).then((r) => r.status)
    expect(await status(created.key)).toBe(422) // authenticated; the job id is what is wrong
    const revoked = (await (await call('keysRevoke', created.info.id)).json()) as { revoked_at: number | null }
    expect(revoked.revoked_at).not.toBeNull()
    expect(await status(created.key)).toBe(401)
    const listed = (await (await call('keysList', undefined)).json()) as Array<{ id: string; prefix: string }>
    expect(JSON.stringify(listed)).not.toContain(created.key) // the secret is never listed
  })

  it('answers refusals with the API error body', async () => {
    const bad = await call('batchCreate', { request: { mode: 'clipping', output_format: 'bmp' }, destination: 'relative/dir' })
    expect(bad.status).toBe(422)
    const body = (await bad.json()) as { error: { code: string; details: Array<{ field: string }> } }
    expect(body.error.code).toBe('validation_failed')
    expect(body.error.details.map((d) => d.field)).toContain('request.output_format')
    expect((await call('upload', {})).status).toBe(404) // uploads go to /api/v1/upload
    expect((await call('noSuchMethod', {})).status).toBe(404)
    expect((await fetch(`${http.url}/api/app/keysList`, { headers: { 'X-API-Key': owner } })).status).toBe(405)
    const text = await fetch(`${http.url}/api/app/keysList`, {
      method: 'POST',
      headers: { 'X-API-Key': owner, 'Content-Type': 'text/plain' },
      body: ''
    })
    expect(text.status).toBe(400)
  })

  it('resumes a batch by id: 404 not_found for an unknown one, 422 validation_failed without an id, 403 for a plain key', async () => {
    const missing = await call('batchResume', '00000000-0000-4000-8000-000000000000')
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found')
    const noId = await call('batchResume', 42)
    expect(noId.status).toBe(422)
    expect(((await noId.json()) as { error: { code: string; details: Array<{ field: string }> } }).error).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'batch_id' }]
    })
    expect((await call('batchResume', 'x', plain)).status).toBe(403)
    // A batch that was not interrupted: resuming changes nothing.
    const created = (await (
      await call('batchCreate', { request: { mode: 'clipping', output_format: 'png' }, destination: join(root, 'out', 'r') })
    ).json()) as {
      id: string
    }
    const resumed = await call('batchResume', created.id)
    expect(resumed.status).toBe(200)
    expect(await resumed.json()).toMatchObject({ id: created.id, interrupted: false, counts: { total: 0 } })
  })

  it('gives a job’s warnings: 404 job_not_found for an unknown job, 422 validation_failed without an id, 403 for a plain key', async () => {
    const missing = await call('jobWarnings', '00000000-0000-4000-8000-000000000000')
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('job_not_found')
    const noId = await call('jobWarnings', 42)
    expect(noId.status).toBe(422)
    expect(((await noId.json()) as { error: { code: string; details: Array<{ field: string }> } }).error).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'job_id' }]
    })
    expect((await call('jobWarnings', 'x', plain)).status).toBe(403)
  })

  it('pushes batch events over Server-Sent Events to owner keys', async () => {
    expect((await fetch(`${http.url}/api/app/events`, { headers: { 'X-API-Key': plain } })).status).toBe(403)
    const controller = new AbortController()
    const res = await fetch(`${http.url}/api/app/events`, { headers: { 'X-API-Key': owner }, signal: controller.signal })
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
    const created = (await (
      await call('batchCreate', { request: { mode: 'clipping', output_format: 'png' }, destination: join(root, 'out', 'sse') })
    ).json()) as {
      id: string
    }
    let text = ''
    while (!text.includes(`"id":"${created.id}"`)) {
      const { value, done } = await reader.read()
      if (done) break
      text += value
    }
    controller.abort()
    expect(text).toContain('event: batch\ndata: {')
    const list = (await (await call('batchesList', undefined)).json()) as Array<{ id: string }>
    expect(list.map((b) => b.id)).toContain(created.id)
  })

  it('serves preview images only at signed addresses', async () => {
    const bad = await fetch(`${http.url}/api/app/files/0f0e0d0c-0b0a-4000-8000-000000000000/thumb-before?v=x&expires=9999999999&sig=nope`)
    expect(bad.status).toBe(403)
    const signed = signedPreviewAddress(engine)('0f0e0d0c-0b0a-4000-8000-000000000000', 'thumb-before', 'x')
    expect((await fetch(`${http.url}${signed}`)).status).toBe(404) // validly signed, but no such item
  })

  it('serves the renderer with a strict CSP, behind the Host check', async () => {
    const page = await fetch(`${http.url}/`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    const csp = page.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(page.headers.get('access-control-allow-origin')).toBeNull()
    expect((await fetch(`${http.url}/assets/app.js`)).headers.get('content-type')).toMatch(/javascript/)
    expect((await fetch(`${http.url}/..%2fsecret.txt`)).status).toBe(404)
    expect((await fetch(`${http.url}/`, { method: 'POST' })).status).toBe(405)
    expect(await rawGet('/', 'evil.example:80')).toBe(403)
    expect(await rawGet('/', `localhost:${http.port}`)).toBe(200)
  })
})

describe('clipdesk keys --admin', () => {
  it('creates an owner key and lists it as such', () => {
    const dataDir = join(root, 'cli-data')
    const created = runCli(['keys', 'create', '--admin', '--name', 'boss', '--data-dir', dataDir])
    expect(created.code).toBe(0)
    expect(created.stdout).toContain('owner')
    const listed = runCli(['keys', 'list', '--data-dir', dataDir])
    expect(listed.stdout).toMatch(/active\tcredits: unlimited\towner\tboss/)
  })
})
