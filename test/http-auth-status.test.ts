/**
 * Auth, credits, the status endpoint's refusals and the listener's guards, on a real socket.
 */
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { multipart, pollUntilSettled, startTestServer, type TestServer } from './helpers/engine'
import { tinyPng } from './helpers/fixtures'
import { json } from './helpers/http'
import { withDataFolderDb } from './helpers/data-folder'

let server: TestServer

beforeAll(async () => {
  // Started, so that jobs that fail before the model (refused fetches) settle and refund.
  server = await startTestServer({ allowPrivateNetworkUrls: false })
})
afterAll(() => server.close())

// Loopback with private URLs off: refused by the pre-check, so no traffic ever leaves this machine.
const BLOCKED_URL = 'http://127.0.0.1:9/a.png'

function upload(key: string | null, body: unknown = { file_url: BLOCKED_URL }) {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' }
  if (key !== null) headers['X-API-Key'] = key
  return fetch(server.url('/api/v1/upload'), { method: 'POST', headers, body: JSON.stringify(body) })
}

function status(key: string | null, query: string) {
  return fetch(server.url(`/api/v1/status${query}`), { headers: key === null ? {} : { 'X-API-Key': key } })
}

/** A raw request, to send a Host header that fetch would not let us set. */
function rawGet(path: string, host: string): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.http.port, path, headers: { Host: host, 'X-API-Key': server.key } }, (res) => {
      let text = ''
      res.on('data', (c) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), headers: res.headers }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('authentication', () => {
  it('answers 401 unauthorized without a key, on both endpoints', async () => {
    const a = await upload(null)
    expect(a.status).toBe(401)
    expect((await json(a)).error.code).toBe('unauthorized')
    const b = await status(null, '?job_id=00000000-0000-4000-8000-000000000000')
    expect(b.status).toBe(401)
    expect((await json(b)).error.code).toBe('unauthorized')
  })

  it('answers 401 unauthorized for a wrong key, on both endpoints', async () => {
    expect((await upload('cdk_not-a-real-key')).status).toBe(401)
    const b = await status('cdk_not-a-real-key', '?job_id=00000000-0000-4000-8000-000000000000')
    expect(b.status).toBe(401)
    expect((await json(b)).error.code).toBe('unauthorized')
  })

  it('answers 401 for a revoked key', async () => {
    const { key, info } = server.engine.createKey({ credits: null })
    expect((await upload(key)).status).toBe(202)
    server.engine.revokeKey(info.id)
    const res = await upload(key)
    expect(res.status).toBe(401)
    expect((await json(res)).error.code).toBe('unauthorized')
  })

  it('checks auth before reading the body', async () => {
    const res = await fetch(server.url('/api/v1/upload'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{bad json'
    })
    expect(res.status).toBe(401)
  })

  it('stores keys hashed: the secret is nowhere in the database', () => {
    const { key } = server.engine.createKey({ credits: 3 })
    const rows = withDataFolderDb(server.dataDir, (db) => db.prepare('SELECT * FROM api_keys').all())
    expect(JSON.stringify(rows)).not.toContain(key)
    expect(JSON.stringify(rows)).not.toContain(key.slice(12))
  })
})

describe('credits', () => {
  it('answers 402 insufficient_credits and creates no job when the balance is 0', async () => {
    const { key } = server.engine.createKey({ credits: 0 })
    const before = server.engine.queuedCount()
    const res = await upload(key)
    expect(res.status).toBe(402)
    expect((await json(res)).error.code).toBe('insufficient_credits')
    expect(server.engine.queuedCount()).toBe(before)
  })

  it('charges one credit per accepted job, also for multipart uploads', async () => {
    const { key, info } = server.engine.createKey({ credits: 2 })
    const png = await tinyPng()
    const form = multipart({}, { bytes: png, type: 'image/png' })
    const res = await fetch(server.url('/api/v1/upload'), { method: 'POST', headers: { 'X-API-Key': key }, body: form })
    expect(res.status).toBe(202)
    expect(server.engine.key(info.id)!.credits).toBe(1)
  })

  it('refunds the credit when the job fails, and the failed job answers 500 job_failed', async () => {
    const { key, info } = server.engine.createKey({ credits: 1 })
    // A loopback address with private URLs off: the fetch is refused, the job fails without the model.
    const res = await upload(key, { file_url: `http://127.0.0.1:${server.http.port}/image.png` })
    expect(res.status).toBe(202)
    const { job_id } = await json(res)
    expect(server.engine.key(info.id)!.credits).toBe(0)
    expect((await upload(key)).status).toBe(402)

    const settled = await pollUntilSettled(server, job_id, key)
    expect(settled.status).toBe(500)
    expect(settled.body).toMatchObject({
      job_id,
      status: 'failed',
      state: 'failed',
      mode: 'clipping',
      final_url: null,
      error: { code: 'job_failed', reason: 'fetch_blocked', job_id }
    })
    expect(server.engine.key(info.id)!.credits).toBe(1)
    const ledger = withDataFolderDb(
      server.dataDir,
      (db) =>
        db.prepare('SELECT delta, reason FROM credit_ledger WHERE job_id = ? ORDER BY id').all(job_id) as {
          delta: number
          reason: string
        }[]
    )
    expect(ledger.map((l) => [Number(l.delta), l.reason])).toEqual([
      [-1, 'charge'],
      [1, 'refund']
    ])
  })
})

describe('status endpoint', () => {
  it('answers 422 when job_id is missing', async () => {
    const res = await status(server.key, '')
    expect(res.status).toBe(422)
    expect((await json(res)).error).toMatchObject({ code: 'validation_failed', details: [{ field: 'job_id' }] })
  })

  it('answers 422 when job_id is not of the id format', async () => {
    const res = await status(server.key, '?job_id=12345')
    expect(res.status).toBe(422)
    expect((await json(res)).error).toMatchObject({ code: 'validation_failed', job_id: '12345' })
  })

  it('answers 404 job_not_found for an unknown id, with the id', async () => {
    const id = '0f0e0d0c-0b0a-4000-8000-000000000000'
    const res = await status(server.key, `?job_id=${id}`)
    expect(res.status).toBe(404)
    expect((await json(res)).error).toMatchObject({ code: 'job_not_found', job_id: id })
  })

  it('answers a queued job as pending with final_url null', async () => {
    const idle = await startTestServer({ run: false })
    try {
      const up = await fetch(idle.url('/api/v1/upload'), {
        method: 'POST',
        headers: { 'X-API-Key': idle.key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ file_url: 'https://example.com/a.png', mode: 'clipping' })
      })
      const { job_id } = await json(up)
      const res = await fetch(idle.url(`/api/v1/status?job_id=${job_id}`), { headers: { 'X-API-Key': idle.key } })
      expect(res.status).toBe(200)
      expect(await json(res)).toEqual({ job_id, status: 'queued', state: 'pending', mode: 'clipping', progress: 0, final_url: null })
    } finally {
      await idle.close()
    }
  })
})

describe('listener guards', () => {
  it('answers 403 forbidden_host to a foreign Host header, before auth', async () => {
    const res = await rawGet('/api/v1/status?job_id=x', 'evil.example:80')
    expect(res.status).toBe(403)
    expect(res.body.error.code).toBe('forbidden_host')
  })

  it('accepts localhost:<port> as Host', async () => {
    const res = await rawGet('/api/v1/openapi.json', `localhost:${server.http.port}`)
    expect(res.status).toBe(200)
    expect(res.body.openapi).toBe('3.1.0')
  })

  it('sends no CORS headers, even to a request with an Origin', async () => {
    const res = await fetch(server.url('/api/v1/openapi.json'), { headers: { Origin: 'https://evil.example' } })
    expect([...res.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([])
  })

  it('answers 405 with Allow for a wrong method, and 404 for an unknown path', async () => {
    const a = await fetch(server.url('/api/v1/upload'), { headers: { 'X-API-Key': server.key } })
    expect(a.status).toBe(405)
    expect(a.headers.get('allow')).toBe('POST')
    expect((await json(a)).error.code).toBe('method_not_allowed')
    const b = await fetch(server.url('/api/v2/upload'))
    expect(b.status).toBe(404)
    expect((await json(b)).error.code).toBe('not_found')
  })

  it('answers 429 rate_limited with Retry-After after a flood of bad keys', async () => {
    const flood = await startTestServer({ run: false })
    try {
      const codes: number[] = []
      for (let i = 0; i < 25; i++) {
        const res = await fetch(flood.url('/api/v1/status?job_id=x'), { headers: { 'X-API-Key': `cdk_guess-${i}` } })
        codes.push(res.status)
        if (res.status === 429) {
          expect(res.headers.get('retry-after')).toMatch(/^\d+$/)
          expect((await json(res)).error.code).toBe('rate_limited')
        } else await res.body?.cancel()
      }
      expect(codes.slice(0, 20).every((c) => c === 401)).toBe(true)
      expect(codes.slice(20).every((c) => c === 429)).toBe(true)
      // The right key still works for the same client.
      const ok = await fetch(flood.url('/api/v1/openapi.json'))
      expect(ok.status).toBe(200)
    } finally {
      await flood.close()
    }
  })

  it('serves an OpenAPI 3.1 document describing both endpoints', async () => {
    const doc = await json(await fetch(server.url('/api/v1/openapi.json')))
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/upload', '/api/v1/status']))
    expect(doc.components.securitySchemes.ApiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' })
  })

  it('names every operation (operationId, each once) and lists the 405 every path answers for another method', async () => {
    const doc = await json(await fetch(server.url('/api/v1/openapi.json')))
    const ops = Object.values(
      doc.paths as Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>
    ).flatMap((item) => Object.values(item))
    const ids = ops.map((o) => o.operationId)
    expect(ids).toEqual(expect.arrayContaining(['createJob', 'getJobStatus', 'getResult', 'getHealth', 'getOpenApiDocument']))
    expect(new Set(ids).size).toBe(ids.length)
    for (const op of ops) expect(Object.keys(op.responses), op.operationId).toContain('405')
  })
})
