import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import { JobFailure } from '../errors'

/**
 * Fast, syntactic SSRF checks on a URL before any socket is opened.
 *
 * This is NOT the real guard: DNS names are only checked when they are resolved, at connect
 * time, by request-filtering-agent (see agents.ts), which also re-checks literal addresses.
 * This pre-check exists so that obvious refusals (literal private addresses, `localhost`, bad
 * schemes) fail with a clear `fetch_blocked` without touching the network or the resolver.
 *
 * The rules mirror the agent's so both layers agree:
 *  - the "unspecified" range (0.0.0.0/8, ::) is always refused — the agent refuses it even
 *    with `allowPrivateIPAddress` unless `allowMetaIPAddress` is set, which we never set
 *    (on Linux 0.0.0.0 reaches the local host);
 *  - any other range ipaddr.js does not call "unicast" (private, loopback, link-local,
 *    multicast, reserved, CGNAT, IPv4-mapped/NAT64/6to4/Teredo IPv6, …) is refused unless
 *    private network URLs are allowed.
 */

export const ALLOWED_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:'])

/**
 * Parses `raw` (relative to `base` for a redirect's Location). An unparseable URL is a
 * fetch_failed, not an SSRF refusal: there is nothing to check yet.
 */
export function parseFetchUrl(raw: string, what: string, base?: URL): URL {
  try {
    return new URL(raw, base)
  } catch (err) {
    throw new JobFailure('fetch_failed', `${what} is not a valid URL`, { cause: err })
  }
}

/** The URL's host as a bare address or name: no IPv6 brackets, lower case, no trailing dot. */
export function bareHostname(url: URL): string {
  let host = url.hostname.toLowerCase()
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1)
  if (host.endsWith('.')) host = host.slice(0, -1)
  return host
}

/**
 * Returns a `fetch_blocked` failure if the URL may not be fetched judging by its scheme and
 * (literal) host alone, or null if it may proceed to the connect-time check.
 */
export function precheckUrl(url: URL, allowPrivateNetworkUrls: boolean): JobFailure | null {
  if (!ALLOWED_PROTOCOLS.has(url.protocol)) {
    return new JobFailure('fetch_blocked', `only http and https URLs can be fetched, not ${url.protocol}`)
  }
  const host = bareHostname(url)
  if (host === '') return new JobFailure('fetch_blocked', 'the URL has no host')

  // `localhost` and `*.localhost` always mean the local host (RFC 6761); refuse them without
  // a DNS lookup. Other names are resolved and checked by the agent.
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return allowPrivateNetworkUrls ? null : blocked(host, 'loopback')
  }

  // WHATWG URL parsing has already turned decimal/octal/hex IPv4 spellings (2130706433,
  // 0177.0.0.1, 0x7f000001) into dotted quads, so net.isIP recognises every literal here.
  if (isIP(host) === 0) return null
  const { range, detail } = classify(ipaddr.parse(host))
  if (range === 'unspecified') return blocked(host, detail)
  if (range !== 'unicast' && !allowPrivateNetworkUrls) return blocked(host, detail)
  return null
}

/**
 * The range an address is judged by. An IPv6 address that carries an IPv4 one — mapped
 * (`::ffff:a.b.c.d`) or the deprecated IPv4-compatible form (`::a.b.c.d`, which ipaddr.js
 * calls unicast) — is judged by the IPv4 address inside, so that `[::ffff:0.0.0.0]` is as
 * unspecified as 0.0.0.0 and `[::127.0.0.1]` as loopback as 127.0.0.1. The compatible form is
 * never public: at best it is reserved.
 */
function classify(addr: ipaddr.IPv4 | ipaddr.IPv6): { range: string; detail: string } {
  const range = addr.range()
  if (!(addr instanceof ipaddr.IPv6) || range === 'unspecified' || range === 'loopback') return { range, detail: range }
  const parts = addr.parts
  const mapped = addr.isIPv4MappedAddress()
  const compatible = parts.slice(0, 6).every((p) => p === 0)
  if (!mapped && !compatible) return { range, detail: range }
  const inner = ipaddr.IPv4.parse(`${parts[6]! >> 8}.${parts[6]! & 255}.${parts[7]! >> 8}.${parts[7]! & 255}`).range()
  const detail = `${mapped ? 'IPv4-mapped' : 'IPv4-compatible'} ${inner}`
  if (inner === 'unspecified') return { range: 'unspecified', detail }
  return { range: mapped ? range : inner === 'unicast' ? 'reserved' : inner, detail }
}

function blocked(host: string, range: string): JobFailure {
  return new JobFailure(
    'fetch_blocked',
    `refusing to fetch from ${host}: address is in a non-public range (${range}); ` +
      'local-network addresses are allowed when clipdesk serve runs with --allow-private-urls'
  )
}
