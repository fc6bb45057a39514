import type { Agent } from 'node:http'
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent'

/**
 * The connect-time SSRF guard. request-filtering-agent checks the address a socket is about to
 * connect to: literal hosts in `createConnection`, DNS names inside the `lookup` it injects —
 * so the address that is checked is the address that is connected to (no TOCTOU / DNS
 * rebinding window), and a refused address never sees a packet.
 *
 * A fresh agent per hop (rather than the library's shared `globalHttpAgent`) because the
 * policy depends on the caller's setting, and so no socket or TLS session is ever shared
 * between fetches. keepAlive stays off (the http.Agent default) so nothing lingers.
 */
export function createFilteringAgent(protocol: string, allowPrivateNetworkUrls: boolean): Agent {
  const options = {
    allowPrivateIPAddress: allowPrivateNetworkUrls,
    // 0.0.0.0 / :: reach the local host on Linux; never allowed (matches address-policy.ts).
    allowMetaIPAddress: false,
    keepAlive: false
  }
  return protocol === 'https:' ? new RequestFilteringHttpsAgent(options) : new RequestFilteringHttpAgent(options)
}

/**
 * Whether `err` is the agent refusing an address. The library raises a plain `Error` with no
 * `code` or class of its own; its only mark is the message, e.g.
 * "DNS lookup 127.0.0.1(family:4, host:localhost) is not allowed. Because, It is private IP address."
 * (also "... Because, It is meta IP address." and "... Because It is defined in denyIPAddressList.").
 */
export function isAgentRefusal(err: unknown): boolean {
  return err instanceof Error && /^DNS lookup .* is not allowed\. Because/s.test(err.message)
}
