import type { ServerResponse } from 'node:http'

/** Headers on every answer. No CORS headers, on purpose: browsers must not read our answers cross-origin. */
const BASE_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff'
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    ...BASE_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers
  })
  res.end(text)
}

const CLIENT_ERROR_STATUS: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large']
}

/**
 * Answers a request Node's parser gave up on (a body cut off before its end, bad framing, a
 * timeout) with our error body where it is a 400, then closes the connection. Without a
 * listener Node does much the same but with an empty body.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  // The answer in flight on this connection, if any (Node's own `_httpMessage`): once its head
  // went out, nothing more may be written after it.
  const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy()
    return
  }
  const [status, reason] = CLIENT_ERROR_STATUS[err.code ?? ''] ?? [400, 'Bad Request']
  const message = 'The request could not be parsed; its body may have ended early.'
  // A remove.bg client reads remove.bg's error shape (removebg/errors.ts), whatever broke.
  const removeBg = inFlight?.req?.url?.startsWith('/v1.0/') === true
  const body =
    status !== 400
      ? ''
      : removeBg
        ? JSON.stringify({ errors: [{ title: 'Invalid request', code: 'invalid_request', detail: message }] })
        : JSON.stringify({ error: { code: 'malformed_request', message } })
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nCache-Control: no-store\r\n` +
      (body
        ? `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
        : 'Content-Length: 0\r\n\r\n')
  )
}
