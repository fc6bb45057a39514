import { createWriteStream } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { Transform, type TransformCallback } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { JobFailure } from '../errors'
import { parseFetchUrl, precheckUrl } from './address-policy'
import { createFilteringAgent, isAgentRefusal } from './agents'
import { errorText } from '../../../shared/errors'

/**
 * Downloads a job's `file_url` (docs/api.md): http/https only, redirects followed by hand so each
 * hop is re-checked, a byte cap, connect and total timeouts, and SSRF filtering on the address
 * actually connected to. Every failure is a `JobFailure` with a `fetch_*` reason, except an
 * abort through `opts.signal`, which rethrows the signal's reason so the caller sees its own
 * cancellation.
 */

export interface FetchToFileOptions {
  /** The `allowPrivateNetworkUrls` setting: allow private/loopback/link-local/... addresses. */
  allowPrivateNetworkUrls: boolean
  /** Byte cap for the body; default 50 MB. */
  maxBytes?: number
  /** Time allowed from starting a request until its socket is connected (per hop); default 10 s. */
  connectTimeoutMs?: number
  /** Time allowed for the whole fetch, redirects and body included; default 60 s. */
  totalTimeoutMs?: number
  /** Redirects followed at most; default 5. */
  maxRedirects?: number
  signal?: AbortSignal
}

export interface FetchToFileResult {
  bytes: number
  contentType: string | null
  /** The URL the body was finally read from, after redirects. */
  finalUrl: string
}

export const FETCH_DEFAULTS = {
  maxBytes: 50 * 1024 * 1024,
  connectTimeoutMs: 10_000,
  totalTimeoutMs: 60_000,
  maxRedirects: 5
} as const

export const FETCH_USER_AGENT = 'Clipdesk/0.1'

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])

export async function fetchToFile(url: string, destPath: string, opts: FetchToFileOptions): Promise<FetchToFileResult> {
  const maxBytes = opts.maxBytes ?? FETCH_DEFAULTS.maxBytes
  const connectTimeoutMs = opts.connectTimeoutMs ?? FETCH_DEFAULTS.connectTimeoutMs
  const totalTimeoutMs = opts.totalTimeoutMs ?? FETCH_DEFAULTS.totalTimeoutMs
  const maxRedirects = opts.maxRedirects ?? FETCH_DEFAULTS.maxRedirects
  const callerSignal = opts.signal
  callerSignal?.throwIfAborted()

  // One controller stops whatever is in flight (a request or the body stream), for either of
  // two causes: the caller's signal (its reason is rethrown) or the total timeout.
  const stop = new AbortController()
  const onCallerAbort = (): void => stop.abort(callerSignal?.reason)
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true })
  const totalTimer = setTimeout(
    () => stop.abort(new JobFailure('fetch_timeout', `fetching the URL took longer than ${totalTimeoutMs} ms`)),
    totalTimeoutMs
  )

  // Written beside the destination and renamed at the end, so destPath only ever holds a
  // complete download.
  const partPath = `${destPath}.part`
  try {
    let current = parseFetchUrl(url, 'file_url')
    for (let redirects = 0; ; redirects++) {
      // Scheme + literal-address check on every hop, before any socket exists.
      const refusal = precheckUrl(current, opts.allowPrivateNetworkUrls)
      if (refusal) throw refusal

      const res = await openResponse(current, opts.allowPrivateNetworkUrls, connectTimeoutMs, stop.signal)
      const status = res.statusCode ?? 0
      const location = res.headers.location
      if (REDIRECT_STATUSES.has(status) && location !== undefined) {
        res.destroy() // the redirect body is not needed; keepAlive is off, so the socket goes too
        if (redirects >= maxRedirects) {
          throw new JobFailure('fetch_failed', `too many redirects (more than ${maxRedirects})`)
        }
        current = parseFetchUrl(location, 'the redirect location', current)
        continue
      }
      if (status < 200 || status > 299) {
        res.destroy()
        throw new JobFailure('fetch_failed', `the server answered HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`)
      }

      const declared = parseContentLength(res.headers['content-length'])
      if (declared !== null && declared > maxBytes) {
        res.destroy()
        throw tooLarge(maxBytes, `declares ${declared} bytes`)
      }
      const bytes = await streamToFile(res, partPath, maxBytes, stop.signal)
      await rename(partPath, destPath)
      return { bytes, contentType: res.headers['content-type'] ?? null, finalUrl: current.href }
    }
  } catch (err) {
    await rm(partPath, { force: true }).catch(() => undefined)
    throw toFailure(err, stop.signal)
  } finally {
    clearTimeout(totalTimer)
    callerSignal?.removeEventListener('abort', onCallerAbort)
  }
}

/**
 * Sends one GET and resolves with its response (any status). Rejects with whatever destroyed
 * the request: the agent's refusal, a connect timeout, the stop signal's reason, a socket error.
 */
function openResponse(url: URL, allowPrivate: boolean, connectTimeoutMs: number, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const isHttps = url.protocol === 'https:'
    const options: RequestOptions = {
      // Built field by field, not from the URL object: http.request would turn URL userinfo
      // into an Authorization header, and we never send credentials.
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      // Fresh headers per hop: nothing (cookies, auth) is carried across redirects.
      headers: { 'User-Agent': FETCH_USER_AGENT, Accept: '*/*' },
      agent: createFilteringAgent(url.protocol, allowPrivate)
    }
    const req = (isHttps ? httpsRequest : httpRequest)(options)

    // http's own `timeout` option is an idle timeout, not a connect timeout. This one runs from
    // now (so it covers the DNS lookup) until the socket is connected (TLS handshake included).
    const connectTimer = setTimeout(
      () => req.destroy(new JobFailure('fetch_timeout', `could not connect to ${url.host} within ${connectTimeoutMs} ms`)),
      connectTimeoutMs
    )
    req.once('socket', (socket) => {
      if (!socket.connecting) return clearTimeout(connectTimer)
      socket.once(isHttps ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer))
    })

    const onAbort = (): void => {
      req.destroy(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    const settle = (): void => {
      clearTimeout(connectTimer)
      signal.removeEventListener('abort', onAbort)
    }
    req.once('response', (res) => {
      settle()
      resolve(res)
    })
    // Stays attached: a late socket error after the response must not be an unhandled 'error'
    // (the body stream reports it to the pipeline).
    req.on('error', (err) => {
      settle()
      reject(err)
    })
    req.end()
  })
}

/** Streams the body to `partPath`, failing with fetch_too_large as soon as it passes maxBytes. */
async function streamToFile(res: IncomingMessage, partPath: string, maxBytes: number, signal: AbortSignal): Promise<number> {
  let bytes = 0
  const limiter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      bytes += chunk.length
      // Erroring the pipeline destroys `res` and with it the socket: the rest is never read.
      if (bytes > maxBytes) callback(tooLarge(maxBytes, 'sent more'))
      else callback(null, chunk)
    }
  })
  await pipeline(res, limiter, createWriteStream(partPath), { signal })
  return bytes
}

function parseContentLength(value: string | undefined): number | null {
  if (value === undefined || !/^\d+$/.test(value.trim())) return null
  return Number(value.trim())
}

function tooLarge(maxBytes: number, what: string): JobFailure {
  return new JobFailure('fetch_too_large', `the file at the URL is larger than the ${maxBytes}-byte limit (the server ${what})`)
}

/** Maps anything thrown during a fetch to what fetchToFile rejects with. */
function toFailure(err: unknown, stop: AbortSignal): unknown {
  // A stopped fetch fails with the stop's reason (the caller's own, or the total timeout),
  // whatever error the teardown produced on the way (AbortError, ECONNRESET, ...).
  if (stop.aborted) return stop.reason
  if (err instanceof JobFailure) return err
  if (isAgentRefusal(err)) {
    return new JobFailure('fetch_blocked', `refusing to connect: ${errorText(err)}`, { cause: err })
  }
  const code = (err as NodeJS.ErrnoException | null)?.code
  const detail = code ?? errorText(err)
  return new JobFailure('fetch_failed', `could not fetch the URL (${detail})`, { cause: err })
}
