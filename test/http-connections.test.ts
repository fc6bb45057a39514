/**
 * The listener's connection caps (connection-cap.ts) on real sockets, with caps small enough to
 * reach by hand: a new connection past the idle cap closes the oldest idle one (never one whose
 * request has arrived); past the total cap a new connection is closed at once, with no answer;
 * a freed place takes a new one. `/api/v1/health` shows the counts. The caps derived from the
 * file limit are checked in http-flood.test.ts (a server under `ulimit -n 1024`).
 */
import { rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { Engine } from '../src/main/engine/engine'
import { budgetFor, ConnectionBudget } from '../src/main/http/connection-cap'
import { startHttpServer, type HttpListener } from '../src/main/http/server'
import { tempDir } from './helpers/engine'
import { json, rawRequest } from './helpers/http'

const dataDir = tempDir('clipdesk-connections-')
const budget = new ConnectionBudget(6, 3, 64)
let engine: Engine
let http: HttpListener

beforeAll(async () => {
  engine = new Engine({ dataDir })
  http = await startHttpServer(engine, { port: 0, connections: budget })
  // Kept-alive connections stay open through the test (Node closes them after 5 s idle).
  http.server.keepAliveTimeout = 120_000
})
afterAll(async () => {
  await http.close()
  await engine.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

/** A connection that sends nothing; `closed` settles when the server closes it. */
function idle(): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: http.port, host: '127.0.0.1' })
    const closed = new Promise<void>((r) => socket.once('close', () => r()))
    socket.on('error', () => undefined)
    socket.once('connect', () => resolve({ socket, closed }))
    socket.once('close', () => reject(new Error('closed before it connected')))
  })
}

/** A kept-alive connection whose request was answered: open, not idle. */
async function answered(): Promise<Socket> {
  const { reply, socket } = rawRequest(http.port, `GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1:${http.port}\r\n`, { total: 0 })
  expect((await reply).status).toBe(200)
  return socket
}

it('the oldest idle connection makes room for a new one; past the total cap a new connection is closed at once; /health counts them', async () => {
  const [a, b, c] = [await idle(), await idle(), await idle()]
  await expect.poll(() => budget.counts().idle).toBe(3)
  const d = await idle()
  await a.closed // the oldest, never having sent a request
  await expect.poll(() => budget.counts()).toMatchObject({ open: 3, idle: 3, evicted: 1 })
  for (const s of [b, c, d]) expect(s.socket.destroyed).toBe(false)

  // A request answered on a kept-alive connection is no longer idle: a new connection evicts
  // an idle one only while the idle cap is full, and answered ones stay open.
  const kept = [await answered(), await answered(), await answered()]
  await b.closed
  await expect.poll(() => budget.counts()).toMatchObject({ open: 5, idle: 2, evicted: 2 })
  for (const s of [...kept, c.socket, d.socket]) expect(s.destroyed).toBe(false)
  await idle()
  await expect.poll(() => budget.counts()).toMatchObject({ open: 6, idle: 3 })

  // Six open: a seventh is closed as soon as it is accepted, with no answer.
  const { reply } = rawRequest(http.port, `GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1:${http.port}\r\n`, { total: 0 })
  expect((await reply).status).toBeNull()
  expect(budget.counts().refused).toBe(1)

  // A place freed: the next connection is served, and /health shows the counts.
  kept[0]!.destroy()
  await expect.poll(() => budget.counts().open).toBe(5)
  const res = await fetch(`${http.url}/api/v1/health`, { headers: { Connection: 'close' } })
  expect(res.status).toBe(200)
  expect((await json(res)).connections).toMatchObject({ max: 6, max_idle: 3, refused: 1, evicted: 3, file_limit: 64 })
  for (const s of kept) s.destroy()
})

it('the caps come from the soft file limit: a quarter of it for connections (at most 4,096), a quarter of that for idle ones', () => {
  expect(budgetFor(1024).counts()).toMatchObject({ max: 256, max_idle: 64, file_limit: 1024 })
  expect(budgetFor(20_000).counts()).toMatchObject({ max: 4096, max_idle: 1024 })
  expect(budgetFor(64).counts()).toMatchObject({ max: 16, max_idle: 8 })
  expect(budgetFor(null).counts()).toMatchObject({ max: 4096, max_idle: 1024, file_limit: null })
})
