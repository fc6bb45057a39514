import { existsSync } from 'node:fs'
import type http from 'node:http'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { fetchToFile } from './fetch-url'
import { dir, expectNoFiles, failure, fetchSandboxPerTest, lookedUp, startServer, stubDnsLookup } from './fetch-url.fixtures'

// How a download is stopped: the size cap, the connect and total timeouts, a failing status or
// connection, and cancellation through the signal. None leaves a file behind.

fetchSandboxPerTest()

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
