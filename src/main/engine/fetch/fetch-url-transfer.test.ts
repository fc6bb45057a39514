import { randomBytes } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FETCH_USER_AGENT, fetchToFile } from './fetch-url'
import { dir, expectNoFiles, failure, fetchSandboxPerTest, startServer, type TestServer } from './fetch-url.fixtures'

// A download that goes through: the bytes written, what is reported and sent, and the redirects
// followed on the way (each hop re-checked, the count capped).

fetchSandboxPerTest()

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
