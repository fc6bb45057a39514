import { describe, expect, it } from 'vitest'
import { BadKeyLimiter, isAllowedHost, limiterClient } from './guard'

describe('isAllowedHost', () => {
  it('allows 127.0.0.1 and localhost on the listener port only', () => {
    expect(isAllowedHost('127.0.0.1:7878', 7878)).toBe(true)
    expect(isAllowedHost('localhost:7878', 7878)).toBe(true)
    expect(isAllowedHost('LOCALHOST:7878', 7878)).toBe(true)
  })

  it('refuses other hosts, other ports, a missing port and a missing header', () => {
    for (const host of [
      'evil.example:7878',
      '127.0.0.1:80',
      '127.0.0.1',
      'localhost',
      '127.0.0.2:7878',
      '[::1]:7878',
      'localhost.evil.example:7878'
    ]) {
      expect(isAllowedHost(host, 7878), host).toBe(false)
    }
    expect(isAllowedHost(undefined, 7878)).toBe(false)
    expect(isAllowedHost('', 7878)).toBe(false)
  })
})

describe('BadKeyLimiter', () => {
  it('lets a client fail up to the limit, then asks it to wait until the window ends', () => {
    const limiter = new BadKeyLimiter(3, 60_000)
    const t0 = 1_000_000
    for (let i = 0; i < 3; i++) {
      expect(limiter.retryAfter('a', t0)).toBe(0)
      limiter.fail('a', t0)
    }
    expect(limiter.retryAfter('a', t0 + 1000)).toBe(59)
    expect(limiter.retryAfter('b', t0 + 1000)).toBe(0)
    expect(limiter.retryAfter('a', t0 + 60_000)).toBe(0)
  })
})

describe('limiterClient', () => {
  it('counts every loopback address as one client, others by address', () => {
    for (const a of ['127.0.0.1', '127.3.4.5', '127.255.255.254', '::1', '::ffff:127.0.0.9', '::FFFF:127.1.1.1'])
      expect(limiterClient(a)).toBe('loopback')
    expect(limiterClient('192.168.1.4')).toBe('192.168.1.4')
    expect(limiterClient('::ffff:10.0.0.1')).toBe('::ffff:10.0.0.1')
    expect(limiterClient(undefined)).toBe('unknown')
  })
})
