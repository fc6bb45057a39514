import { readFile } from 'node:fs/promises'
import http from 'node:http'
import net from 'node:net'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { JobFailure } from '../errors'
import { precheckUrl } from './address-policy'
import { createFilteringAgent, isAgentRefusal } from './agents'
import { fetchToFile } from './fetch-url'
import { dir, expectNoFiles, failure, fetchSandboxPerTest, lookedUp, startServer, stubDnsLookup } from './fetch-url.fixtures'

// Which addresses a fetch may reach: the pre-check of literal hosts, the filtering agent's check
// of DNS answers, and the schemes allowed. Each refusal happens before any connection.

fetchSandboxPerTest()

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
