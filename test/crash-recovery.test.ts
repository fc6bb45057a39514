/**
 * Fault injection: `clipdesk serve` is killed with SIGKILL at random points while 50 jobs run,
 * several rounds, then started again. Every job reaches done with one decodable output, no
 * temp file remains and each job is charged exactly once. A job that is running every time
 * the process dies is failed after 3 attempts and does not stop the others.
 */
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, describe, expect, it } from 'vitest'
import { Engine } from '../src/main/engine/engine'
import { runCli, startServe, type ServeProcess } from './helpers/cli'
import { multipart, tempDir } from './helpers/engine'
import { json } from './helpers/http'
import { scenePng } from './helpers/fixtures'
import { waitFor } from './helpers/wait'
import { withDataFolderDb } from './helpers/data-folder'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** Small seeded generator, so that a failing run can be replayed with CLIPDESK_TEST_SEED. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The random kill point: how long the run goes on after a job finished (what is under test, not a wait). */
const runFor = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function statusOf(serve: ServeProcess, key: string, id: string): Promise<Record<string, any>> {
  return json(await fetch(`http://127.0.0.1:${serve.port}/api/v1/status?job_id=${id}`, { headers: { 'X-API-Key': key } }))
}

async function submit(serve: ServeProcess, key: string, png: Buffer): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${serve.port}/api/v1/upload`, {
    method: 'POST',
    headers: { 'X-API-Key': key },
    body: multipart({}, { bytes: png, type: 'image/png' })
  })
  expect(res.status).toBe(202)
  return (await json(res)).job_id
}

function partialFiles(dir: string): string[] {
  const found: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.part')) found.push(join(entry.parentPath, entry.name))
  }
  return found
}

function keyWithCredits(data: string, credits: number): string {
  const r = runCli(['keys', 'create', '--credits', String(credits), '--data-dir', data])
  expect(r.code).toBe(0)
  return r.stdout.trim().split('\n').at(-1)!
}

describe('crash recovery', () => {
  it('brings 50 jobs to done across random SIGKILLs, each output once, each credit once', async () => {
    const seed = Number(process.env.CLIPDESK_TEST_SEED ?? Date.now() % 100_000)
    const rand = random(seed)
    console.log(`crash-recovery seed ${seed}`)
    const data = tempDir()
    dirs.push(data)
    const key = keyWithCredits(data, 50)
    const png = await scenePng()

    let serve = await startServe(data)
    const ids: string[] = []
    for (let i = 0; i < 50; i++) ids.push(await submit(serve, key, png))

    // Random points, but with progress between them: a job that is hit by every kill is
    // (rightly) treated as crashing the process, which is the other test's case.
    const doneCount = async () => (await Promise.all(ids.map((id) => statusOf(serve, key, id)))).filter((s) => s.status === 'done').length
    const kills: number[] = []
    for (let round = 0; round < 3; round++) {
      const before = await doneCount()
      if (before === ids.length) break // everything finished before this round
      await waitFor('one more job done', async () => (await doneCount()) > before, 600_000, 50)
      const after = Math.round(rand() * 800)
      await runFor(after)
      serve.child.kill('SIGKILL')
      expect(await serve.exited).toBe('SIGKILL')
      kills.push(after)
      serve = await startServe(data)
    }
    expect(kills.length).toBeGreaterThan(0)
    try {
      await waitFor(
        'every job to end',
        async () => (await Promise.all(ids.map((id) => statusOf(serve, key, id)))).every((s) => s.state !== 'pending'),
        600_000,
        250
      )
      for (const id of ids) {
        const body = await statusOf(serve, key, id)
        expect(body.status, `${id} after kills at ${kills.join(', ')} ms (seed ${seed})`).toBe('done')
        expect(readdirSync(join(data, 'results', id))).toEqual(['clipping.png'])
        const out = Buffer.from(await (await fetch(body.final_url)).arrayBuffer())
        expect((await sharp(out).metadata()).width).toBeGreaterThan(0)
      }
    } finally {
      serve.child.kill('SIGTERM')
      await serve.exited
    }
    expect(partialFiles(data)).toEqual([])
    const engine = new Engine({ dataDir: data })
    try {
      const rows = withDataFolderDb(
        data,
        (db) =>
          db.prepare('SELECT reason, count(*) AS n FROM credit_ledger WHERE job_id IS NOT NULL GROUP BY reason').all() as {
            reason: string
            n: number
          }[]
      )
      expect(rows.map((r) => [r.reason, Number(r.n)])).toEqual([['charge', 50]])
      expect(engine.keysList().find((k) => k.credits !== null)!.credits).toBe(0)
    } finally {
      await engine.stop()
    }
  })

  it('fails a job that is running every time the process dies after 3 attempts; the others finish', async () => {
    const data = tempDir()
    dirs.push(data)
    const key = keyWithCredits(data, 4)
    const png = await scenePng()
    let serve = await startServe(data)
    const culprit = await submit(serve, key, png)
    const others = [await submit(serve, key, png), await submit(serve, key, png), await submit(serve, key, png)]

    for (let crash = 0; crash < 3; crash++) {
      await waitFor(
        'the culprit to start',
        async () => {
          const s = await statusOf(serve, key, culprit)
          return s.state !== 'pending' || s.status !== 'queued'
        },
        600_000,
        20
      )
      serve.child.kill('SIGKILL')
      await serve.exited
      serve = await startServe(data)
    }
    try {
      await waitFor(
        'every job to end',
        async () => (await Promise.all([culprit, ...others].map((id) => statusOf(serve, key, id)))).every((s) => s.state !== 'pending'),
        600_000,
        250
      )
      const failed = await statusOf(serve, key, culprit)
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'job_failed', reason: 'pipeline_crashed' } })
      for (const id of others) expect((await statusOf(serve, key, id)).status).toBe('done')
    } finally {
      serve.child.kill('SIGTERM')
      await serve.exited
    }
    const engine = new Engine({ dataDir: data })
    try {
      // Three jobs done (charged), the culprit refunded.
      expect(engine.keysList().find((k) => k.credits !== null)!.credits).toBe(1)
    } finally {
      await engine.stop()
    }
  })
})
