/**
 * `clipdesk serve` as a process, sent the bodies that once ended it (a chunked JSON upload
 * past its limit with any key, 9 MB on the app bridge with the owner key) while it runs a real
 * job: each is answered 413 (or 402 for a key without credits), the process goes on, and the
 * job ends done, not `pipeline_crashed`.
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runCli, startServe, type ServeProcess } from './helpers/cli'
import { multipart, tempDir } from './helpers/engine'
import { scenePng } from './helpers/fixtures'
import { json, rawRequest } from './helpers/http'

const MB = 1024 * 1024
const data = tempDir('clipdesk-serve-bodies-')
let serve: ServeProcess
let owner: string
let client: string
let broke: string

function createKey(args: string[]): string {
  const r = runCli(['keys', 'create', ...args, '--data-dir', data])
  if (r.code !== 0) throw new Error(r.stderr)
  return r.stdout.trim().split('\n').pop()!
}

beforeAll(async () => {
  owner = createKey(['--admin', '--credits', 'unlimited'])
  client = createKey(['--credits', '5'])
  broke = createKey(['--credits', '0'])
  serve = await startServe(data)
})
afterAll(async () => {
  serve?.child.kill('SIGTERM')
  await serve?.exited
  rmSync(data, { recursive: true, force: true })
})

it('answers oversized chunked bodies and carries on with its running job', async () => {
  const base = `http://127.0.0.1:${serve.port}`
  const upload = await fetch(`${base}/api/v1/upload`, {
    method: 'POST',
    headers: { 'X-API-Key': owner },
    body: multipart({}, { bytes: await scenePng(), type: 'image/png' })
  })
  expect(upload.status).toBe(202)
  const jobId = (await json(upload)).job_id as string

  const chunkedJson = (path: string, key: string, total: number) =>
    rawRequest(
      serve.port,
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${serve.port}\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n`,
      {
        prefix: '{"file_url":"',
        chunked: true,
        total
      }
    ).reply
  for (let round = 0; round < 3; round++) {
    const [noCredits, tooLarge, bridge] = await Promise.all([
      chunkedJson('/api/v1/upload', broke, 2 * MB),
      chunkedJson('/api/v1/upload', client, 2 * MB),
      chunkedJson('/api/app/batchesList', owner, 9 * MB)
    ])
    expect([noCredits.status, noCredits.code]).toEqual([402, 'insufficient_credits'])
    expect([tooLarge.status, tooLarge.code]).toEqual([413, 'payload_too_large'])
    expect([bridge.status, bridge.code]).toEqual([413, 'payload_too_large'])
  }
  expect(serve.child.exitCode).toBeNull()

  let state: { status: string; error?: unknown } = { status: 'queued' }
  await expect
    .poll(
      async () => {
        state = await json(await fetch(`${base}/api/v1/status?job_id=${jobId}`, { headers: { 'X-API-Key': owner } }))
        return ['done', 'failed'].includes(state.status)
      },
      { timeout: 120_000, interval: 200 }
    )
    .toBe(true)
  expect(state.status).toBe('done')
  expect(serve.child.exitCode).toBeNull()
})
