/**
 * Pure checks of the local listener, kept apart so they are tested without a socket.
 *
 * Why a Host check: the listener is on 127.0.0.1, but a web page in the user's browser can
 * still make the browser send requests to it (DNS rebinding makes such a page look
 * same-origin). Such requests carry the attacker's host name, so anything but
 * `127.0.0.1:<port>` or `localhost:<port>` is refused before auth.
 */
export function isAllowedHost(hostHeader: string | undefined, port: number): boolean {
  if (!hostHeader) return false
  const host = hostHeader.toLowerCase()
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`
}

/**
 * The client a request counts against in the bad-key limiter. Every loopback address (all of
 * 127/8, ::1, ::ffff:127.x) is one client: on this machine they are all the same sender, and
 * counting them apart would give each of 16 million addresses a fresh budget.
 */
export function limiterClient(address: string | undefined): string {
  if (!address) return 'unknown'
  const a = address.toLowerCase()
  const v4 = a.startsWith('::ffff:') ? a.slice(7) : a
  if (v4.startsWith('127.') || a === '::1') return 'loopback'
  return a
}

/**
 * Counts bad API keys per client address and refuses further bad keys for a while once a
 * client has sent too many: guessing keys is pointless anyway (256-bit), but a flood of
 * them should cost the sender, not the engine.
 */
export class BadKeyLimiter {
  private readonly clients = new Map<string, { count: number; windowStart: number }>()

  constructor(
    private readonly maxFailures = 20,
    private readonly windowMs = 60_000
  ) {}

  /** Seconds the client must wait, or 0 when it may try. */
  retryAfter(client: string, now = Date.now()): number {
    const entry = this.clients.get(client)
    if (!entry || now - entry.windowStart >= this.windowMs) return 0
    return entry.count >= this.maxFailures ? Math.ceil((entry.windowStart + this.windowMs - now) / 1000) : 0
  }

  fail(client: string, now = Date.now()): void {
    const entry = this.clients.get(client)
    if (!entry || now - entry.windowStart >= this.windowMs) {
      this.clients.set(client, { count: 1, windowStart: now })
      if (this.clients.size > 10_000) this.prune(now)
    } else {
      entry.count++
    }
  }

  private prune(now: number): void {
    for (const [client, entry] of this.clients) if (now - entry.windowStart >= this.windowMs) this.clients.delete(client)
  }
}
