/**
 * Jobs past the retention time are swept with their files; newer ones stay.
 */
import { existsSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { multipart, startTestServer, type TestServer } from './helpers/engine'
import { json } from './helpers/http'
import { tinyPng } from './helpers/fixtures'
import { withDataFolderDb } from './helpers/data-folder'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ run: false, retentionMs: 60_000 })
})
afterAll(() => server.close())

async function failedJob(): Promise<string> {
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': server.key },
    body: multipart({}, { bytes: await tinyPng(), type: 'image/png' })
  })
  const { job_id } = await json(res)
  // End it without running it: a cancel is a terminal move like any other.
  expect(server.engine.cancel(job_id)).toBe(true)
  return job_id
}

it('deletes jobs that ended longer ago than the retention time, with their upload; their status is then 404', async () => {
  const old = await failedJob()
  const recent = await failedJob()
  const upload = server.engine.job(old)!.inputPath!
  // As if it had ended two minutes ago, past the retention time: aged in the data folder's file.
  const aged = withDataFolderDb(server.dataDir, (db) =>
    db.prepare('UPDATE jobs SET finished_at = ? WHERE id = ?').run(Date.now() - 120_000, old)
  )
  expect(aged.changes).toBe(1)
  expect(existsSync(upload)).toBe(true)

  expect(server.engine.sweep()).toBe(1)
  expect(existsSync(upload)).toBe(false)
  const gone = await fetch(server.url(`/api/v1/status?job_id=${old}`), { headers: { 'X-API-Key': server.key } })
  expect(gone.status).toBe(404)
  expect((await json(gone)).error.code).toBe('job_not_found')
  const kept = await fetch(server.url(`/api/v1/status?job_id=${recent}`), { headers: { 'X-API-Key': server.key } })
  expect(kept.status).toBe(500)
  expect((await json(kept)).error.code).toBe('cancelled')
})
