/**
 * A job that hangs (here: its file_url server stalls forever after the headers) is stopped by
 * the job watchdog, fails with reason pipeline_timeout and gets its credit back, while the
 * job beside it finishes.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { multipart, pollUntilSettled, startTestServer, type TestServer } from './helpers/engine'
import { json } from './helpers/http'
import { scenePng } from './helpers/fixtures'

let server: TestServer
let stalling: Server
let stallUrl: string

beforeAll(async () => {
  // Long enough for a real cutout once the model is loaded, even on a busy 2-core machine
  // (one inference took 30 s under heavy load), short enough for the test.
  server = await startTestServer({ allowPrivateNetworkUrls: true, jobTimeoutMs: 60_000 })
  await server.engine.warmUp()
  stalling = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'image/png' })
    res.write(Buffer.from([0x89, 0x50, 0x4e, 0x47])) // then nothing, ever
  })
  await new Promise<void>((r) => stalling.listen(0, '127.0.0.1', r))
  stallUrl = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}/slow.png`
})
afterAll(async () => {
  stalling.closeAllConnections()
  await new Promise<void>((r) => stalling.close(() => r()))
  await server.close()
})

it('fails a hung job with pipeline_timeout, refunds it, and still runs the other job', async () => {
  const { key, info } = server.engine.createKey({ credits: 2 })
  const hung = await json(
    await fetch(server.url('/api/v1/upload'), {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ file_url: stallUrl })
    })
  )
  const normal = await json(
    await fetch(server.url('/api/v1/upload'), {
      method: 'POST',
      headers: { 'X-API-Key': key },
      body: multipart({}, { bytes: await scenePng(), type: 'image/png' })
    })
  )
  const a = await pollUntilSettled(server, hung.job_id, key)
  expect(a.status).toBe(500)
  expect(a.body.error).toMatchObject({ code: 'job_failed', reason: 'pipeline_timeout' })
  const b = await pollUntilSettled(server, normal.job_id, key)
  expect(b.body.status).toBe('done')
  expect(server.engine.key(info.id)!.credits).toBe(1)
})
