/**
 * Keys take turns in the queue (`engine/queue/turns.ts`): with a real engine and real HTTP
 * uploads, the order jobs are claimed in. The jobs ask for a loopback `file_url`, which the
 * fetch refuses at once: each job is claimed, fails without a model run, and frees the one
 * slot for the next claim, so the order is the scheduler's choice alone.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { JobEvent } from '../src/main/engine/engine'
import { startTestServer, type TestServer } from './helpers/engine'
import { json } from './helpers/http'

let server: TestServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

async function queue(s: TestServer, key: string): Promise<string> {
  const res = await fetch(s.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ file_url: 'http://127.0.0.1:1/photo.png' })
  })
  const body = await json(res)
  expect(res.status).toBe(202)
  return body.job_id as string
}

/** Starts the engine and gives the job ids in the order they left `queued`, once all `count` jobs ended. */
function claimOrder(s: TestServer, count: number): Promise<string[]> {
  const claimed: string[] = []
  const ended = new Set<string>()
  return new Promise((resolve) => {
    const seen = (e: JobEvent): void => {
      if (e.status !== 'queued' && !claimed.includes(e.job_id)) claimed.push(e.job_id)
      if (e.status === 'failed' || e.status === 'done' || e.status === 'cancelled') ended.add(e.job_id)
      if (ended.size === count) {
        s.engine.off('job', seen)
        resolve(claimed)
      }
    }
    s.engine.on('job', seen)
    s.engine.start()
  })
}

describe('keys take turns in the queue', () => {
  it("one key's backlog and another key's jobs and the app's own are claimed in turns, each key's jobs in their order", async () => {
    server = await startTestServer({ run: false, concurrency: 1 })
    const s = server
    const heavy = s.engine.createKey({ credits: 100 }).key
    const light = s.engine.createKey({ credits: 10 }).key
    const a = [await queue(s, heavy), await queue(s, heavy), await queue(s, heavy), await queue(s, heavy)]
    const b = [await queue(s, light), await queue(s, light)]
    // The app's own job (no key: a batch's or a watched folder's) takes turns as one key.
    const app = await s.engine.upload({ fields: { file_url: 'http://127.0.0.1:1/photo.png' }, keyId: null })
    const appJob = app.job_id
    const order = await claimOrder(s, 7)
    expect(order).toEqual([a[0], b[0], appJob, a[1], b[1], a[2], a[3]])
    for (const id of order) expect(s.engine.job(id)!.status).toBe('failed')
  })
})
