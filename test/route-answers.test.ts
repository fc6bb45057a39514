/**
 * The API's answers (status, error code, headers) to a fixed set of requests over every route
 * (`helpers/route-requests.ts`), replayed against the recording in
 * `fixtures/route-answers.json`. The recording was made from the build before the route table;
 * re-record (after a deliberate change of an answer, documented in docs/api.md) with
 *
 *   RECORD_ROUTE_ANSWERS=1 npx vitest run test/route-answers.test.ts
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { startAppServer } from './helpers/app-server'
import { tempDir } from './helpers/engine'
import { ROUTE_REQUESTS, send, type KeyOf, type RecordedAnswer } from './helpers/route-requests'

const FIXTURE = join(import.meta.dirname, 'fixtures', 'route-answers.json')
/** Requests per listener: each listener has its own bad-key limiter, which allows 20 failures a minute. */
const PER_LISTENER = 12

let root: string
let engine: Engine
let batches: BatchService
let keys: Record<KeyOf, string | null>
let rendererDir: string

beforeAll(() => {
  root = tempDir('clipdesk-routes-')
  rendererDir = join(root, 'renderer')
  mkdirSync(join(rendererDir, 'assets'), { recursive: true })
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Clipdesk</title>')
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)')
  writeFileSync(join(root, 'secret.txt'), 'outside the renderer')
  // Not started: uploads stay queued, no model runs.
  engine = new Engine({ dataDir: join(root, 'data') })
  batches = new BatchService(engine)
  keys = {
    none: null,
    bad: 'cd_not_a_key',
    client: engine.createKey({ credits: 5, name: 'script' }).key,
    owner: engine.createKey({ credits: null, name: 'owner', admin: true }).key
  }
})

afterAll(async () => {
  await batches.stop()
  await engine.stop()
  rmSync(root, { recursive: true, force: true })
})

async function answers(): Promise<RecordedAnswer[]> {
  const out: RecordedAnswer[] = []
  for (let at = 0; at < ROUTE_REQUESTS.length; at += PER_LISTENER) {
    const { http } = await startAppServer(root, engine, batches, { rendererDir })
    try {
      for (const r of ROUTE_REQUESTS.slice(at, at + PER_LISTENER)) out.push(await send(http.port, r, keys))
    } finally {
      await http.close()
    }
  }
  return out
}

it('answers every route as recorded', async () => {
  const got = await answers()
  if (process.env.RECORD_ROUTE_ANSWERS === '1') writeFileSync(FIXTURE, `${JSON.stringify(got, null, 2)}\n`)
  const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8')) as RecordedAnswer[]
  expect(got).toEqual(recorded)
})
