/**
 * Jobs survive the server stopping mid-queue: stop `clipdesk serve` (SIGTERM, then SIGKILL)
 * while jobs are queued or running, start it again on the same data folder, and every job
 * reaches done with one decodable output and one charge.
 */
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, expect, it } from 'vitest'
import { startServe, type ServeProcess } from './helpers/cli'
import { multipart, tempDir } from './helpers/engine'
import { scenePng } from './helpers/fixtures'
import { json } from './helpers/http'
import { waitFor } from './helpers/wait'

const data = tempDir()
afterAll(() => rmSync(data, { recursive: true, force: true }))

async function status(serve: ServeProcess, key: string, id: string): Promise<Record<string, any>> {
  const res = await fetch(`http://127.0.0.1:${serve.port}/api/v1/status?job_id=${id}`, { headers: { 'X-API-Key': key } })
  return json(res)
}

it('resumes every interrupted job after SIGTERM and after SIGKILL', async () => {
  const png = await scenePng()
  let serve = await startServe(data)
  const key = serve.key!
  const ids: string[] = []
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`http://127.0.0.1:${serve.port}/api/v1/upload`, {
      method: 'POST',
      headers: { 'X-API-Key': key },
      body: multipart({}, { bytes: png, type: 'image/png' })
    })
    expect(res.status).toBe(202)
    ids.push((await json(res)).job_id)
  }
  // Stop cleanly while the first job is running.
  await waitFor('the first job to start', async () => (await status(serve, key, ids[0]!)).status !== 'queued', 170_000, 100)
  serve.child.kill('SIGTERM')
  expect(await serve.exited).toBe(0)

  // Start again, then kill hard while some job is mid-pipeline.
  serve = await startServe(data)
  await waitFor(
    'a job mid-pipeline',
    async () => {
      const states = await Promise.all(ids.map((id) => status(serve, key, id)))
      return states.some((s) => s.status === 'segmenting' || s.status === 'pending_compose' || s.status === 'encoding')
    },
    170_000,
    100
  )
  serve.child.kill('SIGKILL')
  expect(await serve.exited).toBe('SIGKILL')

  serve = await startServe(data)
  try {
    await waitFor(
      'every job to end',
      async () => (await Promise.all(ids.map((id) => status(serve, key, id)))).every((s) => s.state !== 'pending'),
      170_000,
      100
    )
    for (const id of ids) {
      const body = await status(serve, key, id)
      expect(body.status, JSON.stringify(body)).toBe('done')
      const out = Buffer.from(await (await fetch(body.final_url)).arrayBuffer())
      expect((await sharp(out).metadata()).channels).toBe(4)
      // Exactly one output file, no temp files left behind.
      expect(readdirSync(join(data, 'results', id))).toEqual(['clipping.png'])
    }
    expect(readdirSync(join(data, 'uploads')).filter((f) => f.endsWith('.part'))).toEqual([])
  } finally {
    serve.child.kill('SIGTERM')
    await serve.exited
  }
})
