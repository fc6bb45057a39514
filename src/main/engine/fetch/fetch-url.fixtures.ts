/**
 * What the fetchToFile tests share (`fetch-url-*.test.ts`): loopback test servers, a fresh
 * download folder per test, the JobFailure a fetch rejects with, and a DNS stand-in.
 *
 * Every server here listens on 127.0.0.1 and every URL that is actually fetched points there.
 * The refusal tests additionally replace net.Socket#connect with a thrower, so even a bug in
 * the pre-check could not put a packet on the wire towards a non-loopback address.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import http from 'node:http'
import { createRequire, syncBuiltinESMExports } from 'node:module'
import type net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, vi } from 'vitest'

export interface TestServer {
  port: number
  url(path?: string): string
  /** TCP connections accepted so far. */
  connections(): number
  requests: http.IncomingMessage[]
  close(): Promise<void>
}

const servers: TestServer[] = []

export async function startServer(handler: http.RequestListener = (_req, res) => res.end('ok')): Promise<TestServer> {
  const server = http.createServer(handler)
  let connections = 0
  server.on('connection', () => connections++)
  const requests: http.IncomingMessage[] = []
  server.on('request', (req) => requests.push(req))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  const handle: TestServer = {
    port,
    url: (path = '/') => `http://127.0.0.1:${port}${path}`,
    connections: () => connections,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  servers.push(handle)
  return handle
}

/** This test's download folder (an ES live binding: read it inside a test, not at import). */
export let dir: string

/**
 * Hooks for a test file: a fresh download folder before each test; after it, mocks and the
 * DNS stand-in undone, every server closed and the folder removed.
 */
export function fetchSandboxPerTest(): void {
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'clipdesk-fetch-'))
  })
  afterEach(async () => {
    vi.restoreAllMocks()
    restoreDnsLookup()
    await Promise.all(servers.splice(0).map((s) => s.close()))
    await rm(dir, { recursive: true, force: true })
  })
}

/** A job's failure, read the one way the engine's tests read it. */
export { failure } from '../errors.fixtures'

/** The download directory holds nothing: no destination, no `.part`. */
export async function expectNoFiles(): Promise<void> {
  expect(await readdir(dir)).toEqual([])
}

// --- DNS stand-in -------------------------------------------------------------------------
// request-filtering-agent checks DNS answers inside the lookup it hands to net. To exercise
// that path without a real resolver, dns.lookup is swapped (and the ESM namespace synced) for
// a stub that answers only with loopback — or never answers, for the connect timeout.
const dnsCjs = createRequire(import.meta.url)('node:dns') as typeof import('node:dns')
const realLookup = dnsCjs.lookup
/** The host names the stub was asked for since it was put in (an ES live binding). */
export let lookedUp: string[] = []

type LookupCb = (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void
export function stubDnsLookup(mode: 'loopback' | 'hang'): void {
  lookedUp = []
  const stub = (hostname: string, options: unknown, callback?: LookupCb): void => {
    const cb = (typeof options === 'function' ? options : callback) as LookupCb
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true
    lookedUp.push(hostname)
    if (mode === 'hang') return
    if (all) cb(null, [{ address: '127.0.0.1', family: 4 }])
    else cb(null, '127.0.0.1', 4)
  }
  ;(dnsCjs as { lookup: unknown }).lookup = stub
  syncBuiltinESMExports()
}
function restoreDnsLookup(): void {
  if (dnsCjs.lookup !== realLookup) {
    ;(dnsCjs as { lookup: unknown }).lookup = realLookup
    syncBuiltinESMExports()
  }
}
