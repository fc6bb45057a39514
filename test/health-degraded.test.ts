/**
 * `GET /api/v1/health` tells a supervisor when the engine cannot work: while a sandbox pool
 * cannot start processes it answers 503 with `status: "degraded"` and the reason (every other
 * field as in its 200 answer), an upload meanwhile gets 503 `unavailable` rather than a hang or a
 * "cannot be read"; once a process starts again, 200 `ok`, with no restart. The sandbox entry is
 * a real script that first ends at once (as a process that cannot load would) and is then made
 * the real one; the pool tries again on its own (pool.test.ts covers EMFILE and a throwing fork).
 */
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { findSandboxScript } from '../src/main/engine/sandbox/specs'
import { multipart, startTestServer, tempDir, type TestServer } from './helpers/engine'
import { tinyPng } from './helpers/fixtures'
import { json } from './helpers/http'

const real = findSandboxScript()
const dir = tempDir('clipdesk-degraded-')
const entry = join(dir, 'decode-child.mjs')
const saved = process.env.CLIPDESK_SANDBOX_SCRIPT
let server: TestServer

beforeAll(async () => {
  writeFileSync(entry, 'process.exit(1)\n')
  process.env.CLIPDESK_SANDBOX_SCRIPT = entry
  server = await startTestServer({ run: false })
})
afterAll(async () => {
  await server?.close()
  if (saved === undefined) delete process.env.CLIPDESK_SANDBOX_SCRIPT
  else process.env.CLIPDESK_SANDBOX_SCRIPT = saved
  rmSync(dir, { recursive: true, force: true })
})

const upload = async (): Promise<Response> =>
  fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': server.key },
    body: multipart({}, { bytes: await tinyPng(), type: 'image/png' })
  })

it('answers 503 degraded with the reason while no sandbox process can start, uploads 503 unavailable; 200 ok once one can again', async () => {
  const refused = await upload()
  expect(refused.status).toBe(503)
  expect(refused.headers.get('retry-after')).toBe('5')
  const error = (await json(refused)).error
  expect(error.code).toBe('unavailable')
  expect(error.message).toBe(
    'The server cannot read images now: a sandbox process could not be started (it exited while starting, exit code 1); try again shortly.'
  )

  const degraded = await fetch(server.url('/api/v1/health'))
  expect(degraded.status).toBe(503)
  const body = await json(degraded)
  expect(body.status).toBe('degraded')
  expect(body.reason).toMatch(
    /^a process for decoding the image could not be started \(it exited while starting, exit code 1\); \d+ failed starts in a row$/
  )
  expect(Object.keys(body).sort()).toEqual(
    ['connections', 'device', 'device_setting', 'device_warning', 'model', 'queued', 'reason', 'session', 'status'].sort()
  )

  // The cause goes away: the pool tries again on its own, with no request waiting.
  writeFileSync(entry, `import ${JSON.stringify(pathToFileURL(real).href)}\n`)
  await expect
    .poll(async () => {
      const res = await fetch(server.url('/api/v1/health'))
      const { status, reason } = await json(res)
      return [res.status, status, reason]
    })
    .toEqual([200, 'ok', null])
  expect((await upload()).status).toBe(202)
})
