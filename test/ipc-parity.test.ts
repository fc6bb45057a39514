/**
 * The IPC handlers answer with the same {status, body} as HTTP for the same requests
 * (docs/api.md): refusals identical, accepted jobs and their status of the same shape.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngineHandlers, resultAddress } from '../src/main/app-api/engine-handlers'
import type { IpcHandlers } from '../src/shared/ipc'
import { multipart, pollUntilSettled, startTestServer, tempDir, type TestServer } from './helpers/engine'
import { scenePng } from './helpers/fixtures'
import { json } from './helpers/http'

let server: TestServer
let ipc: Pick<IpcHandlers, 'upload' | 'status'>
let png: Buffer

beforeAll(async () => {
  server = await startTestServer()
  ipc = createEngineHandlers(server.engine)
  png = await scenePng()
})
afterAll(() => server.close())

async function httpJson(body: unknown) {
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': server.key, 'Content-Type': 'application/json' },
    body: JSON.stringify(body)
  })
  return { status: res.status, body: await json(res) }
}

describe('IPC parity with HTTP', () => {
  const refusals: Array<[string, Record<string, unknown>]> = [
    ['neither input', { mode: 'clipping' }],
    ['bad enum', { file_url: 'https://example.com/a.png', output_format: 'bmp' }],
    ['bad scheme', { file_url: 'ftp://example.com/a.png' }],
    ['params missing', { file_url: 'https://example.com/a.png', mode: 'params' }],
    ['wrong type', { file_url: 'https://example.com/a.png', delivery_mode: 3 }]
  ]

  it.each(refusals)('refuses "%s" with the same status and body', async (_name, request) => {
    const viaHttp = await httpJson(request)
    const viaIpc = await ipc.upload(request)
    expect(viaIpc).toEqual(viaHttp)
  })

  it('refuses bytes that are not an image with the same body as a multipart upload', async () => {
    const bytes = Buffer.from('not an image at all')
    const res = await fetch(server.url('/api/v1/upload'), {
      method: 'POST',
      headers: { 'X-API-Key': server.key },
      body: multipart({}, { bytes, type: 'image/png' })
    })
    const viaHttp = { status: res.status, body: await json(res) }
    const viaIpc = await ipc.upload({ file: { bytes: new Uint8Array(bytes), type: 'image/png' } })
    expect(viaIpc).toEqual(viaHttp)
  })

  it('answers status refusals identically', async () => {
    for (const query of ['', 'nope', '0f0e0d0c-0b0a-4000-8000-000000000000']) {
      const res = await fetch(server.url(`/api/v1/status?job_id=${query}`), { headers: { 'X-API-Key': server.key } })
      expect(await ipc.status(query)).toEqual({ status: res.status, body: await json(res) })
    }
  })

  it('runs a job given by path to done; its status has the HTTP fields, with app addresses', async () => {
    const dir = tempDir()
    const file = join(dir, 'ball.png')
    writeFileSync(file, png)
    const accepted = await ipc.upload({ file: { path: file } })
    expect(accepted.status).toBe(202)
    const jobId = (accepted.body as { job_id: string }).job_id

    const viaHttp = await pollUntilSettled(server, jobId)
    const viaIpc = await ipc.status(jobId)
    expect(viaIpc.status).toBe(viaHttp.status)
    const { final_url, final_urls, ...rest } = viaIpc.body as unknown as Record<string, unknown>
    const { final_url: _u, final_urls: _us, ...httpRest } = viaHttp.body
    expect(rest).toEqual(httpRest)
    expect(final_url).toBe(resultAddress(jobId, 'clipping', 'png'))
    expect(final_urls).toEqual({ clipping: final_url })
  })

  it('refuses a path that is not a readable file with 422 naming file', async () => {
    const res = await ipc.upload({ file: { path: '/no/such/file.png' } })
    expect(res.status).toBe(422)
    expect(res.body).toMatchObject({ error: { code: 'validation_failed', details: [{ field: 'file' }] } })
  })
})
