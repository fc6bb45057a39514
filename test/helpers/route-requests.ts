/**
 * A fixed set of requests covering every route of the API listener (with the app bridge and a
 * renderer folder), good and bad: no key, a bad key, a key of the wrong kind, the wrong method,
 * a bad body, an unknown path and a foreign Host. What each answers (status, error code, the
 * headers that say something) is recorded in `test/fixtures/route-answers.json` by
 * `test/record-route-answers.ts` and replayed by `test/route-answers.test.ts`, so that a change
 * to the routing cannot change an answer unnoticed.
 */
import { request } from 'node:http'

export type KeyOf = 'none' | 'bad' | 'client' | 'owner'

export interface RouteRequest {
  method: string
  path: string
  key?: KeyOf
  /** Content-Type and body; none: no body. */
  body?: { type: string; text: string | Buffer }
  /** The Host header. @default 127.0.0.1:<port> */
  host?: string
}

export interface RecordedAnswer {
  request: string
  status: number
  /** Our `error.code`, or the first of remove.bg's `errors[].code`; null for none. */
  code: string | null
  /** The headers below, where present; values that change with time or ids are `*`. */
  headers: Record<string, string>
}

const UUID = '00000000-0000-4000-8000-000000000000'
const BOUNDARY = 'routeanswers'
const multipart = (fields: Record<string, string>): { type: string; text: string } => ({
  type: `multipart/form-data; boundary=${BOUNDARY}`,
  text: `${Object.entries(fields)
    .map(([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('')}--${BOUNDARY}--\r\n`
})
/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
const withFile = (fields: Record<string, string>): { type: string; text: Buffer } => {
  const { type, text } = multipart(fields)
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`
  return { type, text: Buffer.concat([Buffer.from(head), PNG, Buffer.from('\r\n'), Buffer.from(text)]) }
}
const jsonBody = (text: string): { type: string; text: string } => ({ type: 'application/json', text })

export const ROUTE_REQUESTS: RouteRequest[] = [
  // The API
  { method: 'GET', path: '/api/v1/health' },
  { method: 'POST', path: '/api/v1/health' },
  { method: 'GET', path: '/api/v1/health', host: 'evil.example:80' },
  { method: 'GET', path: '/api/v1/openapi.json' },
  { method: 'DELETE', path: '/api/v1/openapi.json' },
  { method: 'POST', path: '/api/v1/upload', key: 'none', body: multipart({ file_url: 'http://example.com/a.png' }) },
  { method: 'POST', path: '/api/v1/upload', key: 'bad', body: multipart({ file_url: 'http://example.com/a.png' }) },
  { method: 'POST', path: '/api/v1/upload', key: 'client', body: jsonBody('{}') },
  { method: 'POST', path: '/api/v1/upload', key: 'client', body: multipart({ mode: 'clipping' }) },
  { method: 'POST', path: '/api/v1/upload', key: 'client', body: multipart({ file_url: 'http://example.com/a.png', mode: 'nope' }) },
  { method: 'GET', path: '/api/v1/upload', key: 'client' },
  { method: 'POST', path: '/api/v1/upload', key: 'client', body: withFile({ mode: 'clipping' }) },
  { method: 'POST', path: '/api/v1/upload', key: 'client', body: withFile({ mode: 'clipping', output_format: 'gif' }) },
  { method: 'GET', path: '/api/v1/status', key: 'none' },
  { method: 'GET', path: '/api/v1/status', key: 'bad' },
  { method: 'GET', path: '/api/v1/status', key: 'client' },
  { method: 'GET', path: `/api/v1/status?job_id=${UUID}`, key: 'client' },
  { method: 'GET', path: '/api/v1/status?job_id=abc', key: 'client' },
  { method: 'PUT', path: '/api/v1/status', key: 'client' },
  { method: 'GET', path: `/api/v1/results/${UUID}/clipping.png` },
  { method: 'GET', path: `/api/v1/results/${UUID}/clipping.png?expires=1&sig=00` },
  { method: 'POST', path: `/api/v1/results/${UUID}/clipping.png` },
  { method: 'GET', path: '/api/v1/results/abc/clipping.png' },
  { method: 'GET', path: '/api/v1/jobs', key: 'none' },
  { method: 'GET', path: '/api/v1/jobs', key: 'client' },
  { method: 'GET', path: '/api/v1/jobs?limit=abc', key: 'client' },
  { method: 'GET', path: '/api/v1/jobs?cursor=x', key: 'client' },
  { method: 'POST', path: '/api/v1/jobs', key: 'client' },
  { method: 'POST', path: '/api/v1/cancel', key: 'none' },
  { method: 'POST', path: '/api/v1/cancel', key: 'client' },
  { method: 'POST', path: '/api/v1/cancel?job_id=abc', key: 'client' },
  { method: 'POST', path: `/api/v1/cancel?job_id=${UUID}`, key: 'client' },
  { method: 'POST', path: '/api/v1/cancel', key: 'client', body: jsonBody(`{"job_id":"${UUID}"}`) },
  { method: 'POST', path: '/api/v1/cancel', key: 'client', body: jsonBody('{"job_id":') },
  { method: 'GET', path: '/api/v1/cancel', key: 'client' },
  { method: 'DELETE', path: `/api/v1/jobs/${UUID}`, key: 'none' },
  { method: 'DELETE', path: `/api/v1/jobs/${UUID}`, key: 'client' },
  { method: 'DELETE', path: '/api/v1/jobs/abc', key: 'client' },
  { method: 'GET', path: `/api/v1/jobs/${UUID}`, key: 'client' },
  { method: 'GET', path: '/api/v1/jobs/a/b', key: 'client' },
  { method: 'GET', path: '/api/v1/nope', key: 'client' },
  { method: 'GET', path: '/api/v1/studio/workers', key: 'client' },
  { method: 'POST', path: '/api/v1/studio/hello', key: 'client' },
  // remove.bg's
  { method: 'POST', path: '/v1.0/removebg', key: 'none', body: multipart({ image_url: 'http://example.com/a.png' }) },
  { method: 'POST', path: '/v1.0/removebg', key: 'bad', body: multipart({ image_url: 'http://example.com/a.png' }) },
  { method: 'POST', path: '/v1.0/removebg', key: 'client', body: multipart({ size: 'auto' }) },
  { method: 'POST', path: '/v1.0/removebg', key: 'client', body: multipart({ image_url: 'http://example.com/a.png', size: 'nope' }) },
  { method: 'POST', path: '/v1.0/removebg', key: 'client', body: jsonBody('{"size":') },
  { method: 'GET', path: '/v1.0/removebg', key: 'client' },
  { method: 'GET', path: '/v1.0/account', key: 'none' },
  { method: 'GET', path: '/v1.0/account', key: 'bad' },
  { method: 'GET', path: '/v1.0/account', key: 'client' },
  { method: 'POST', path: '/v1.0/account', key: 'client' },
  // The app bridge and the renderer
  { method: 'POST', path: '/api/app/batchesList', key: 'none', body: jsonBody('null') },
  { method: 'POST', path: '/api/app/batchesList', key: 'bad', body: jsonBody('null') },
  { method: 'POST', path: '/api/app/batchesList', key: 'client', body: jsonBody('null') },
  { method: 'POST', path: '/api/app/batchesList', key: 'owner', body: jsonBody('null') },
  { method: 'POST', path: '/api/app/batchesList', key: 'owner', body: jsonBody('{') },
  { method: 'GET', path: '/api/app/batchesList', key: 'owner' },
  { method: 'POST', path: '/api/app/upload', key: 'owner', body: jsonBody('null') },
  { method: 'POST', path: '/api/app/nope', key: 'owner', body: jsonBody('null') },
  { method: 'GET', path: '/api/app/events', key: 'none' },
  { method: 'GET', path: '/api/app/events', key: 'client' },
  { method: 'GET', path: '/api/app/events', key: 'owner' },
  { method: 'POST', path: '/api/app/events', key: 'owner' },
  { method: 'GET', path: `/api/app/files/${UUID}/cutout` },
  { method: 'GET', path: `/api/app/files/${UUID}/cutout?expires=1&sig=00` },
  { method: 'POST', path: `/api/app/files/${UUID}/cutout` },
  { method: 'GET', path: `/api/app/download/${UUID}/1` },
  { method: 'POST', path: `/api/app/download/${UUID}/1` },
  { method: 'GET', path: `/api/app/download-batch/${UUID}.zip` },
  { method: 'POST', path: `/api/app/download-batch/${UUID}.zip` },
  { method: 'GET', path: '/' },
  { method: 'POST', path: '/' },
  { method: 'GET', path: '/assets/app.js' },
  { method: 'GET', path: '/assets/none.js' },
  { method: 'GET', path: '/%2e%2e/secret.txt' },
  { method: 'GET', path: '/api/nope' },
  { method: 'GET', path: '/v1.0/nope', key: 'client' }
]

/** Headers whose presence or value the routing decides. */
const KEPT = [
  'allow',
  'content-type',
  'cache-control',
  'retry-after',
  'x-content-type-options',
  'x-frame-options',
  'content-security-policy',
  'referrer-policy',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'connection'
]
/** Kept as present (`*`), not by value: they change from run to run. */
const VARYING = new Set(['x-ratelimit-reset', 'content-security-policy'])

export const describeRequest = (r: RouteRequest): string =>
  `${r.method} ${r.path}${r.key ? ` key=${r.key}` : ''}${r.body ? ` body=${JSON.stringify(typeof r.body.text === 'string' ? r.body.text : r.body.text.toString('latin1')).slice(0, 60)}` : ''}${r.host ? ` host=${r.host}` : ''}`

/** Sends one request on a fresh connection and reads its answer's head and (for JSON) body. */
export function send(port: number, r: RouteRequest, keys: Record<KeyOf, string | null>): Promise<RecordedAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Host: r.host ?? `127.0.0.1:${port}`, Connection: 'close' }
    const key = keys[r.key ?? 'none']
    if (key) headers['X-API-Key'] = key
    if (r.body) {
      headers['Content-Type'] = r.body.type
      headers['Content-Length'] = String(Buffer.byteLength(r.body.text))
    }
    const req = request({ host: '127.0.0.1', port, method: r.method, path: r.path, headers }, (res) => {
      const kept: Record<string, string> = {}
      for (const name of KEPT) {
        const v = res.headers[name]
        if (v !== undefined) kept[name] = VARYING.has(name) ? '*' : String(v)
      }
      const type = String(res.headers['content-type'] ?? '')
      // A stream (SSE) never ends by itself: its head is the answer.
      if (type.startsWith('text/event-stream') || !type.includes('json')) {
        res.destroy()
        resolve({ request: describeRequest(r), status: res.statusCode ?? 0, code: null, headers: kept })
        return
      }
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => {
        text += c
      })
      res.on('end', () => {
        let code: string | null = null
        try {
          const body = JSON.parse(text) as { error?: { code?: string }; errors?: Array<{ code?: string }> }
          code = body.error?.code ?? body.errors?.[0]?.code ?? null
        } catch {
          code = null
        }
        resolve({ request: describeRequest(r), status: res.statusCode ?? 0, code, headers: kept })
      })
    })
    req.on('error', reject)
    req.end(r.body?.text)
  })
}
