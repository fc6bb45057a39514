/**
 * Credits under contention: 500 uploads at once against a balance of 100. Exactly 100 are
 * accepted, the others get 402 and create no job, and the balance ends at 0, never below.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/engine'
import { json } from './helpers/http'
import { withDataFolderDb } from './helpers/data-folder'

let server: TestServer
beforeAll(async () => {
  // Not started: accepted jobs stay queued, so nothing is refunded while we count.
  server = await startTestServer({ run: false })
})
afterAll(() => server.close())

it('accepts exactly as many jobs as there are credits under 500 concurrent uploads', async () => {
  const { key, info } = server.engine.createKey({ credits: 100 })
  const send = () =>
    fetch(server.url('/api/v1/upload'), {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ file_url: 'https://images.example/photo.jpg' })
    }).then(async (res) => ({ status: res.status, code: res.status === 202 ? null : (await json(res)).error.code }))
  const results = await Promise.all(Array.from({ length: 500 }, send))
  const accepted = results.filter((r) => r.status === 202).length
  const refused = results.filter((r) => r.status === 402 && r.code === 'insufficient_credits').length
  expect(accepted).toBe(100)
  expect(refused).toBe(400)
  expect(server.engine.key(info.id)!.credits).toBe(0)
  expect(server.engine.queuedCount()).toBe(100)
  const ledger = withDataFolderDb(
    server.dataDir,
    (db) =>
      db.prepare("SELECT count(*) AS n, sum(delta) AS d FROM credit_ledger WHERE key_id = ? AND reason = 'charge'").get(info.id) as {
        n: number
        d: number
      }
  )
  expect([Number(ledger.n), Number(ledger.d)]).toEqual([100, -100])
})
