/**
 * A key's own jobs over a real listener: the list (newest first, paged by cursor) and cancel
 * (`POST /api/v1/cancel`, `DELETE /api/v1/jobs/<id>`). The engine takes no work (`run: false`),
 * so jobs stay queued and no model runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { multipart, startTestServer, type TestServer } from './helpers/engine'
import { tinyPng } from './helpers/fixtures'
import { json } from './helpers/http'

let server: TestServer
let png: Buffer
let otherKey: string

beforeAll(async () => {
  server = await startTestServer({ run: false })
  png = await tinyPng()
  otherKey = server.engine.createKey({ credits: 10 }).key
})
afterAll(() => server.close())

async function submit(key: string, name = 'photo.png'): Promise<string> {
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': key },
    body: multipart({}, { bytes: png, type: 'image/png', name })
  })
  expect(res.status).toBe(202)
  return (await json(res)).job_id
}

const get = (path: string, key = server.key) => fetch(server.url(path), { headers: { 'X-API-Key': key } })

describe('GET /api/v1/jobs', () => {
  it("lists only the key's own jobs, newest first, page by page", async () => {
    const key = server.engine.createKey({ credits: null }).key
    const ids = [await submit(key, 'a.png'), await submit(key, 'b.png'), await submit(key, 'c.png')]
    await submit(otherKey, 'other.png')

    const first = await json(await get('/api/v1/jobs?limit=2', key))
    expect(first.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([ids[2], ids[1]])
    expect(first.jobs[0]).toMatchObject({
      status: 'queued',
      state: 'pending',
      mode: 'clipping',
      progress: 0,
      source: 'c.png',
      finished_at: null
    })
    expect(Date.parse(first.jobs[0].created_at)).not.toBeNaN()
    expect(first.next_cursor).toMatch(/^[0-9]+$/)

    const second = await json(await get(`/api/v1/jobs?limit=2&cursor=${first.next_cursor}`, key))
    expect(second.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([ids[0]])
    expect(second.next_cursor).toBeNull()

    const all = await json(await get('/api/v1/jobs', key))
    expect(all.jobs).toHaveLength(3)
  })

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['cursor=-1', 'cursor'],
    ['cursor=abc', 'cursor']
  ])('refuses %s with 422 naming the parameter', async (query, field) => {
    const res = await get(`/api/v1/jobs?${query}`)
    expect(res.status).toBe(422)
    const body = await json(res)
    expect(body.error.code).toBe('validation_failed')
    expect(body.error.details[0].field).toBe(field)
  })

  it('needs a key (401) and GET (405)', async () => {
    const res = await fetch(server.url('/api/v1/jobs'))
    expect(res.status).toBe(401)
    expect((await json(res)).error.code).toBe('unauthorized')
    const post = await fetch(server.url('/api/v1/jobs'), { method: 'POST', headers: { 'X-API-Key': server.key } })
    expect(post.status).toBe(405)
    expect((await json(post)).error.code).toBe('method_not_allowed')
  })
})

describe('cancel', () => {
  it('POST /api/v1/cancel with a JSON body cancels a queued job and refunds its credit', async () => {
    const { key, info } = server.engine.createKey({ credits: 3 })
    const id = await submit(key)
    expect(server.engine.key(info.id)!.credits).toBe(2)
    const res = await fetch(server.url('/api/v1/cancel'), {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ job_id: id })
    })
    expect(res.status).toBe(200)
    expect(await json(res)).toEqual({ job_id: id, status: 'cancelled', state: 'failed' })
    expect(server.engine.job(id)!.status).toBe('cancelled')
    expect(server.engine.key(info.id)!.credits).toBe(3)
    const status = await get(`/api/v1/status?job_id=${id}`, key)
    expect(status.status).toBe(500)
    expect((await json(status)).error.code).toBe('cancelled')
  })

  it('POST /api/v1/cancel?job_id= and DELETE /api/v1/jobs/<id> cancel too', async () => {
    const a = await submit(server.key)
    const byQuery = await fetch(server.url(`/api/v1/cancel?job_id=${a}`), { method: 'POST', headers: { 'X-API-Key': server.key } })
    expect(byQuery.status).toBe(200)
    const b = await submit(server.key)
    const byDelete = await fetch(server.url(`/api/v1/jobs/${b}`), { method: 'DELETE', headers: { 'X-API-Key': server.key } })
    expect(byDelete.status).toBe(200)
    expect(server.engine.job(b)!.status).toBe('cancelled')
  })

  it('answers 409 conflict for a job that already ended', async () => {
    const id = await submit(server.key)
    await fetch(server.url(`/api/v1/jobs/${id}`), { method: 'DELETE', headers: { 'X-API-Key': server.key } })
    const again = await fetch(server.url(`/api/v1/jobs/${id}`), { method: 'DELETE', headers: { 'X-API-Key': server.key } })
    expect(again.status).toBe(409)
    expect((await json(again)).error.code).toBe('conflict')
  })

  it("answers 404 job_not_found for another key's job, and leaves it running", async () => {
    const id = await submit(otherKey)
    for (const res of [
      await fetch(server.url(`/api/v1/jobs/${id}`), { method: 'DELETE', headers: { 'X-API-Key': server.key } }),
      await fetch(server.url(`/api/v1/cancel?job_id=${id}`), { method: 'POST', headers: { 'X-API-Key': server.key } })
    ]) {
      expect(res.status).toBe(404)
      expect((await json(res)).error.code).toBe('job_not_found')
    }
    expect(server.engine.job(id)!.status).toBe('queued')
  })

  it.each([
    ['/api/v1/jobs/42', 'DELETE', 422, 'validation_failed'],
    ['/api/v1/jobs/00000000-0000-4000-8000-000000000000', 'DELETE', 404, 'job_not_found'],
    ['/api/v1/cancel', 'POST', 422, 'validation_failed'],
    ['/api/v1/cancel?job_id=nope', 'POST', 422, 'validation_failed'],
    ['/api/v1/jobs/00000000-0000-4000-8000-000000000000', 'GET', 405, 'method_not_allowed'],
    ['/api/v1/cancel', 'GET', 405, 'method_not_allowed']
  ])('%s %s → %i %s', async (path, method, status, code) => {
    const res = await fetch(server.url(path), { method, headers: { 'X-API-Key': server.key } })
    expect(res.status).toBe(status)
    expect((await json(res)).error.code).toBe(code)
  })

  it('refuses a cancel body that is not JSON with 400 malformed_request', async () => {
    const res = await fetch(server.url('/api/v1/cancel'), {
      method: 'POST',
      headers: { 'X-API-Key': server.key, 'Content-Type': 'application/json' },
      body: '{job_id'
    })
    expect(res.status).toBe(400)
    expect((await json(res)).error.code).toBe('malformed_request')
  })
})

describe('the OpenAPI document', () => {
  it('describes the job list, cancel and the remove.bg-compatible endpoints', async () => {
    const doc = await json(await fetch(server.url('/api/v1/openapi.json')))
    expect(doc.paths['/api/v1/jobs'].get.operationId).toBe('listJobs')
    expect(doc.paths['/api/v1/cancel'].post.operationId).toBe('cancelJob')
    expect(doc.paths['/api/v1/jobs/{job_id}'].delete.operationId).toBe('deleteJob')
    expect(Object.keys(doc.paths['/v1.0/removebg'].post.responses)).toEqual(expect.arrayContaining(['200', '400', '402', '403', '429']))
    expect(doc.paths['/v1.0/account'].get.operationId).toBe('getAccount')
  })
})
