import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import http from 'node:http'
import { createRequire, syncBuiltinESMExports } from 'node:module'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { JobFailure } from '../errors'
import { precheckUrl } from './address-policy'
import { createFilteringAgent, isAgentRefusal } from './agents'
import { fetchToFile, FETCH_USER_AGENT } from './fetch-url'

// Every server here listens on 127.0.0.1 and every URL that is actually fetched points there.
// The refusal tests additionally replace net.Socket#connect with a thrower, so even a bug in
// the pre-check could not put a packet on the wire towards a non-loopback address.

interface TestServer {
  port: number
  url(path?: string): string
  /** TCP connections accepted so far. */
  connections(): number
  requests: http.IncomingMessage[]
  close(): Promise<void>
}

const servers: TestServer[] = []

async function startServer(handler: http.RequestListener = (_req, res) => res.end('ok')): Promise<TestServer> {
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

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clipdesk-fetch-'))
})
afterEach(async () => {
  vi.restoreAllMocks()
  restoreDnsLookup()
  await Promise.all(servers.splice(0).map((s) => s.close()))
  await rm(dir, { recursive: true, force: true })
})

/** Rejection of `promise` as a JobFailure (fails the test if it resolves or rejects otherwise). */
async function failure(promise: Promise<unknown>): Promise<JobFailure> {
  const err = await promise.then(
    () => {
      throw new Error('expected the fetch to fail')
    },
    (e: unknown) => e
  )
  expect(err).toBeInstanceOf(JobFailure)
  return err as JobFailure
}

/** The download directory holds nothing: no destination, no `.part`. */
async function expectNoFiles(): Promise<void> {
  expect(await readdir(dir)).toEqual([])
}

// --- DNS stand-in -------------------------------------------------------------------------
// request-filtering-agent checks DNS answers inside the lookup it hands to net. To exercise
// that path without a real resolver, dns.lookup is swapped (and the ESM namespace synced) for
// a stub that answers only with loopback — or never answers, for the connect timeout.
const dnsCjs = createRequire(import.meta.url)('node:dns') as typeof import('node:dns')
const realLookup = dnsCjs.lookup
let lookedUp: string[] = []

type LookupCb = (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void
function stubDnsLookup(mode: 'loopback' | 'hang'): void {
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

describe('fetchToFile: success', () => {
  it('writes the exact bytes and reports size, type and final URL', async () => {
    const body = randomBytes(300_000)
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': body.length })
      res.end(body)
    })
    const dest = join(dir, 'input.png')
    const result = await fetchToFile(server.url('/img.png?x=1'), dest, { allowPrivateNetworkUrls: true })
    expect(result).toEqual({ bytes: body.length, contentType: 'image/png', finalUrl: server.url('/img.png?x=1') })
    expect((await readFile(dest)).equals(body)).toBe(true)
    expect(await readdir(dir)).toEqual(['input.png'])
  })

  it('handles a chunked body within the cap', async () => {
    const body = randomBytes(100_000)
    const server = await startServer((_req, res) => {
      res.writeHead(200) // no Content-Length: chunked
      res.write(body.subarray(0, 40_000))
      res.end(body.subarray(40_000))
    })
    const dest = join(dir, 'in.bin')
    const result = await fetchToFile(server.url(), dest, { allowPrivateNetworkUrls: true, maxBytes: body.length })
    expect(result.bytes).toBe(body.length)
    expect(result.contentType).toBeNull()
    expect((await readFile(dest)).equals(body)).toBe(true)
  })

  it('sends User-Agent Clipdesk/0.1 and never credentials or cookies', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/start') {
        res.writeHead(302, { Location: `http://user:pw@127.0.0.1:${server.port}/end`, 'Set-Cookie': 'sid=1' })
        return res.end()
      }
      res.end('done')
    })
    const url = `http://alice:secret@127.0.0.1:${server.port}/start`
    await fetchToFile(url, join(dir, 'f'), { allowPrivateNetworkUrls: true })
    expect(server.requests).toHaveLength(2)
    for (const req of server.requests) {
      expect(req.headers['user-agent']).toBe(FETCH_USER_AGENT)
      expect(req.headers['user-agent']).toBe('Clipdesk/0.1')
      expect(req.headers.authorization).toBeUndefined()
      expect(req.headers.cookie).toBeUndefined()
    }
  })
})

describe('fetchToFile: SSRF refusals', () => {
  it('refuses a loopback URL with the setting off, and the server sees no connection', async () => {
    const canary = await startServer()
    const err = await failure(fetchToFile(canary.url('/x.png'), join(dir, 'f'), { allowPrivateNetworkUrls: false }))
    expect(err.reason).toBe('fetch_blocked')
    expect(err.message).toMatch(/--allow-private-urls/)
    expect(canary.connections()).toBe(0)
    await expectNoFiles()
  })

  // host spellings, all refused by the pre-check without any socket or DNS lookup
  const blockedHosts = [
    '127.0.0.1',
    'localhost',
    'LOCALHOST.',
    'img.localhost',
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '100.64.0.1',
    '169.254.169.254',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:169.254.169.254]',
    '[::127.0.0.1]',
    '[::7f00:1]',
    '[::8.8.8.8]',
    '[::ffff:0.0.0.0]',
    '[fe80::1]',
    '[fc00::1]',
    '0x7f000001',
    '2130706433',
    '0177.0.0.1',
    '127.1',
    '0.0.0.0',
    '[::]',
    '224.0.0.1',
    '255.255.255.255',
    '240.0.0.1'
  ]

  it('(sanity) the net.Socket#connect guard used below does intercept http requests', async () => {
    const canary = await startServer()
    const connect = vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(() => {
      throw new Error('test guard')
    })
    const err = await new Promise<unknown>((resolve) => {
      try {
        http.get(canary.url(), () => resolve(new Error('connected'))).on('error', resolve)
      } catch (e) {
        resolve(e)
      }
    })
    expect((err as Error).message).toBe('test guard')
    expect(connect).toHaveBeenCalled()
    expect(canary.connections()).toBe(0)
  })

  it.each(blockedHosts)('refuses %s before connecting', async (host) => {
    const canary = await startServer()
    const url = `http://${host}:${canary.port}/img.png`

    // The pre-check alone refuses it ...
    const pre = precheckUrl(new URL(url), false)
    expect(pre).toBeInstanceOf(JobFailure)
    expect(pre?.reason).toBe('fetch_blocked')

    // ... and through fetchToFile nothing reaches the socket layer or the resolver.
    const connect = vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(() => {
      throw new Error('test guard: no connection may be attempted')
    })
    stubDnsLookup('loopback')
    const err = await failure(fetchToFile(url, join(dir, 'f'), { allowPrivateNetworkUrls: false }))
    expect(err.reason).toBe('fetch_blocked')
    expect(connect).not.toHaveBeenCalled()
    expect(lookedUp).toEqual([])
    expect(canary.connections()).toBe(0)
    await expectNoFiles()
  })

  it('lets the unspecified address through neither way (0.0.0.0 reaches the local host)', () => {
    expect(precheckUrl(new URL('http://0.0.0.0/'), true)?.reason).toBe('fetch_blocked')
    expect(precheckUrl(new URL('http://[::]/'), true)?.reason).toBe('fetch_blocked')
    // The same address inside IPv6, mapped or IPv4-compatible, in any spelling.
    for (const host of ['[::ffff:0.0.0.0]', '[::ffff:0:0]', '[::0.0.0.0]', '[::ffff:0.0.0.9]', '[0:0:0:0:0:ffff:0.0.0.0]']) {
      expect(precheckUrl(new URL(`http://${host}/`), true)?.message).toMatch(/unspecified/)
    }
    expect(precheckUrl(new URL('http://127.0.0.1/'), true)).toBeNull()
    expect(precheckUrl(new URL('http://example.com/'), false)).toBeNull()
    expect(precheckUrl(new URL('http://8.8.8.8/'), false)).toBeNull()
  })

  it('judges an IPv4-compatible IPv6 address by the IPv4 address inside', () => {
    expect(precheckUrl(new URL('http://[::127.0.0.1]/'), false)?.message).toMatch(/IPv4-compatible loopback/)
    expect(precheckUrl(new URL('http://[::7f00:1]/'), false)?.message).toMatch(/IPv4-compatible loopback/)
    expect(precheckUrl(new URL('http://[::a9fe:a9fe]/'), false)?.message).toMatch(/IPv4-compatible linkLocal/)
    // Deprecated form: never a public address, even around a public IPv4 one.
    expect(precheckUrl(new URL('http://[::8.8.8.8]/'), false)?.message).toMatch(/reserved|IPv4-compatible unicast/)
    expect(precheckUrl(new URL('http://[::127.0.0.1]/'), true)).toBeNull()
  })

  it('refuses a DNS name that resolves to loopback, at connect time, without connecting', async () => {
    const canary = await startServer()
    stubDnsLookup('loopback')
    const url = `http://images.clipdesk.test:${canary.port}/a.png`
    expect(precheckUrl(new URL(url), false)).toBeNull() // a name: only the agent can judge it
    const err = await failure(fetchToFile(url, join(dir, 'f'), { allowPrivateNetworkUrls: false }))
    expect(err.reason).toBe('fetch_blocked')
    expect(err.message).toMatch(/127\.0\.0\.1/)
    expect(lookedUp).toContain('images.clipdesk.test')
    expect(canary.connections()).toBe(0)
    await expectNoFiles()
  })

  it('fetches the same DNS name once private network URLs are allowed (the stub is in effect)', async () => {
    const canary = await startServer((_req, res) => res.end('via-name'))
    stubDnsLookup('loopback')
    const dest = join(dir, 'f')
    const result = await fetchToFile(`http://images.clipdesk.test:${canary.port}/a.png`, dest, { allowPrivateNetworkUrls: true })
    expect(result.bytes).toBe(8)
    expect(await readFile(dest, 'utf8')).toBe('via-name')
    expect(lookedUp).toContain('images.clipdesk.test')
  })

  it('recognises the agent refusal error (the library gives it no code)', async () => {
    const canary = await startServer()
    const agent = createFilteringAgent('http:', false)
    const err = await new Promise<unknown>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port: canary.port, agent }, () => resolve(new Error('connected')))
      req.on('error', resolve)
    })
    expect(isAgentRefusal(err)).toBe(true)
    expect(isAgentRefusal(new Error('connect ECONNREFUSED 127.0.0.1:1'))).toBe(false)
    expect(canary.connections()).toBe(0)
  })

  it('refuses a non-http(s) URL', async () => {
    for (const url of ['ftp://127.0.0.1/x', 'file:///etc/passwd', 'data:image/png;base64,AAAA', 'gopher://127.0.0.1/']) {
      const err = await failure(fetchToFile(url, join(dir, 'f'), { allowPrivateNetworkUrls: true }))
      expect(err.reason).toBe('fetch_blocked')
    }
    await expectNoFiles()
  })
})

describe('fetchToFile: redirects', () => {
  /** /r/N redirects to /r/N-1 (relative Location) until /r/0, which serves the body. */
  async function chainServer(): Promise<TestServer> {
    return startServer((req, res) => {
      const n = Number(/^\/r\/(\d+)$/.exec(req.url ?? '')?.[1] ?? NaN)
      if (n > 0) {
        res.writeHead(n % 2 ? 302 : 307, { Location: `/r/${n - 1}` })
        return res.end('redirecting')
      }
      if (n === 0) return res.end('final')
      res.writeHead(404).end()
    })
  }

  it('follows a chain of 5 redirects', async () => {
    const server = await chainServer()
    const dest = join(dir, 'f')
    const result = await fetchToFile(server.url('/r/5'), dest, { allowPrivateNetworkUrls: true })
    expect(result.finalUrl).toBe(server.url('/r/0'))
    expect(await readFile(dest, 'utf8')).toBe('final')
    expect(server.requests).toHaveLength(6)
  })

  it('fails a chain of 6 redirects with fetch_failed', async () => {
    const server = await chainServer()
    const err = await failure(fetchToFile(server.url('/r/6'), join(dir, 'f'), { allowPrivateNetworkUrls: true }))
    expect(err.reason).toBe('fetch_failed')
    expect(err.message).toMatch(/too many redirects/i)
    expect(server.requests).toHaveLength(6) // the 6th redirect is not followed
    await expectNoFiles()
  })

  it('honours a smaller maxRedirects', async () => {
    const server = await chainServer()
    const err = await failure(fetchToFile(server.url('/r/2'), join(dir, 'f'), { allowPrivateNetworkUrls: true, maxRedirects: 1 }))
    expect(err.message).toMatch(/too many redirects/i)
  })

  it('re-checks each redirect: a redirect to file:// is blocked', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(302, { Location: 'file:///etc/passwd' }).end()
    })
    const err = await failure(fetchToFile(server.url(), join(dir, 'f'), { allowPrivateNetworkUrls: true }))
    expect(err.reason).toBe('fetch_blocked')
    expect(err.message).toMatch(/file:/)
    await expectNoFiles()
  })

  it('re-checks each redirect: a redirect to the unspecified address is blocked before connecting', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(301, { Location: `http://0.0.0.0:${server.port}/` }).end()
    })
    const err = await failure(fetchToFile(server.url(), join(dir, 'f'), { allowPrivateNetworkUrls: true }))
    expect(err.reason).toBe('fetch_blocked')
    expect(server.connections()).toBe(1) // only the first hop
  })

  it('fails a 3xx without Location as a non-2xx status', async () => {
    const server = await startServer((_req, res) => res.writeHead(302).end())
    const err = await failure(fetchToFile(server.url(), join(dir, 'f'), { allowPrivateNetworkUrls: true }))
    expect(err.reason).toBe('fetch_failed')
    expect(err.message).toMatch(/302/)
  })
})

describe('fetchToFile: size cap', () => {
  it('refuses a Content-Length over the cap without reading the body', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Length': 1_000 })
      res.end(Buffer.alloc(1_000))
    })
    const err = await failure(fetchToFile(server.url(), join(dir, 'f'), { allowPrivateNetworkUrls: true, maxBytes: 999 }))
    expect(err.reason).toBe('fetch_too_large')
    await expectNoFiles()
  })

  it('accepts a body of exactly maxBytes', async () => {
    const server = await startServer((_req, res) => res.end(Buffer.alloc(1_000, 7)))
    const result = await fetchToFile(server.url(), join(dir, 'f'), { allowPrivateNetworkUrls: true, maxBytes: 1_000 })
    expect(result.bytes).toBe(1_000)
  })

  it('stops a chunked body once it passes the cap and leaves no file', async () => {
    let serverSaw: 'ended' | 'closed' | undefined
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png' }) // chunked, no length declared
      let sent = 0
      const chunk = Buffer.alloc(16 * 1024, 1)
      const pump = (): void => {
        // Up to 64 MB: far more than the cap, so only the client stopping ends this.
        while (sent < 64 * 1024 * 1024 && !res.destroyed) {
          sent += chunk.length
          if (!res.write(chunk)) return void res.once('drain', pump)
        }
        if (!res.destroyed) res.end(() => (serverSaw = 'ended'))
      }
      res.on('close', () => (serverSaw ??= 'closed'))
      pump()
    })
    const err = await failure(fetchToFile(server.url(), join(dir, 'big.png'), { allowPrivateNetworkUrls: true, maxBytes: 100_000 }))
    expect(err.reason).toBe('fetch_too_large')
    await expectNoFiles()
    await vi.waitFor(() => expect(serverSaw).toBe('closed'))
  })
})

describe('fetchToFile: timeouts, statuses, abort', () => {
  /** Sends headers and one chunk, then stalls forever. */
  const stall: http.RequestListener = (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'image/png' })
    res.write('partial')
  }

  it('fails a server that stalls after the headers with fetch_timeout and removes the partial file', async () => {
    const server = await startServer(stall)
    const err = await failure(fetchToFile(server.url(), join(dir, 'f'), { allowPrivateNetworkUrls: true, totalTimeoutMs: 300 }))
    expect(err.reason).toBe('fetch_timeout')
    await expectNoFiles()
  })

  it('fails a server that never answers with fetch_timeout', async () => {
    const server = await startServer(() => undefined)
    const err = await failure(fetchToFile(server.url(), join(dir, 'f'), { allowPrivateNetworkUrls: true, totalTimeoutMs: 300 }))
    expect(err.reason).toBe('fetch_timeout')
  })

  it('applies the connect timeout (a DNS lookup that never answers)', async () => {
    stubDnsLookup('hang')
    const err = await failure(
      fetchToFile('http://slow-dns.clipdesk.test/', join(dir, 'f'), { allowPrivateNetworkUrls: true, connectTimeoutMs: 200 })
    )
    expect(err.reason).toBe('fetch_timeout')
    expect(err.message).toMatch(/connect/)
    expect(lookedUp).toEqual(['slow-dns.clipdesk.test'])
  })

  it('fails a 404 with fetch_failed naming the status', async () => {
    const server = await startServer((_req, res) => res.writeHead(404).end('nope'))
    const err = await failure(fetchToFile(server.url('/missing.png'), join(dir, 'f'), { allowPrivateNetworkUrls: true }))
    expect(err.reason).toBe('fetch_failed')
    expect(err.message).toMatch(/404/)
    await expectNoFiles()
  })

  it('fails a refused connection with fetch_failed', async () => {
    const server = await startServer()
    const url = server.url()
    await server.close() // nothing listens on the port any more
    const err = await failure(fetchToFile(url, join(dir, 'f'), { allowPrivateNetworkUrls: true }))
    expect(err.reason).toBe('fetch_failed')
    expect(err.message).toMatch(/ECONNREFUSED/)
  })

  it('rethrows the signal reason when aborted mid-body, and removes the partial file', async () => {
    let sawRequest!: () => void
    const requested = new Promise<void>((resolve) => (sawRequest = resolve))
    const server = await startServer((req, res) => {
      stall(req, res)
      sawRequest()
    })
    const controller = new AbortController()
    const reason = new Error('job cancelled')
    const pending = fetchToFile(server.url(), join(dir, 'f'), { allowPrivateNetworkUrls: true, signal: controller.signal })
    await requested
    controller.abort(reason)
    await expect(pending).rejects.toBe(reason)
    await expectNoFiles()
  })

  it('rethrows the signal reason when aborted before the response', async () => {
    let sawRequest!: () => void
    const requested = new Promise<void>((resolve) => (sawRequest = resolve))
    const server = await startServer(() => sawRequest())
    const controller = new AbortController()
    const pending = fetchToFile(server.url(), join(dir, 'f'), { allowPrivateNetworkUrls: true, signal: controller.signal })
    await requested
    controller.abort(new Error('stop'))
    await expect(pending).rejects.toThrow('stop')
  })

  it('does not connect at all with an already aborted signal', async () => {
    const server = await startServer()
    const reason = new Error('already cancelled')
    await expect(
      fetchToFile(server.url(), join(dir, 'f'), { allowPrivateNetworkUrls: true, signal: AbortSignal.abort(reason) })
    ).rejects.toBe(reason)
    expect(server.connections()).toBe(0)
    expect(existsSync(join(dir, 'f.part'))).toBe(false)
  })
})
