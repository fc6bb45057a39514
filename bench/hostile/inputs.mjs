/**
 * Hostile inputs that used to crash, freeze or bloat the server: a multipart body ending inside
 * its file part, SVGs with a backtracking trap, huge embedded images and a costly filter, then
 * the next ordinary job. Each is answered, watched by `/api/v1/openapi.json` as before.
 */
import { connect } from 'node:net'
import sharp from 'sharp'

const flatPng = (w, h) =>
  sharp({ create: { width: w, height: h, channels: 3, background: '#0a0' } })
    .png()
    .toBuffer()
const svgWithImage = async (side) =>
  Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><image width="100" height="100" href="data:image/png;base64,${(await flatPng(side, side)).toString('base64')}"/></svg>`
  )
const spaces = ' '.repeat(12_000)

export default async function inputs(ctx) {
  const { base, port, key } = ctx.server
  const upload = async (bytes, type) => {
    const form = new FormData()
    form.append('file', new Blob([bytes], { type }), 'input')
    const res = await fetch(`${base}/api/v1/upload`, { method: 'POST', headers: { 'x-api-key': key }, body: form })
    return { status: res.status, body: await res.json() }
  }
  const settle = async (jobId) => {
    for (;;) {
      const res = await fetch(`${base}/api/v1/status?job_id=${jobId}`, { headers: { 'x-api-key': key } })
      const body = await res.json()
      if (body.state !== 'pending')
        return { http: res.status, status: body.status, reason: body.error?.reason, message: body.error?.message }
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  const uploadAndSettle = async (bytes, type) => {
    const res = await upload(bytes, type)
    if (res.status !== 202) return { http: res.status, code: res.body.error?.code, issue: res.body.error?.details?.[0]?.issue }
    return { http: 202, job: await settle(res.body.job_id) }
  }
  /** A multipart body that stops inside the file part, with an honest Content-Length. */
  const truncatedMultipart = () =>
    new Promise((resolve) => {
      const boundary = 'b0undary'
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`
      const body = Buffer.concat([Buffer.from(head), Buffer.alloc(64 * 1024, 7)])
      const socket = connect(port, '127.0.0.1', () => {
        socket.end(
          Buffer.concat([
            Buffer.from(
              `POST /api/v1/upload HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-API-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`
            ),
            body
          ])
        )
      })
      let answer = ''
      socket.on('data', (c) => (answer += c))
      socket.on('error', (err) => resolve({ error: err.code }))
      socket.on('close', () => {
        const status = Number(answer.slice(9, 12)) || null
        const at = answer.indexOf('"code":"')
        resolve({ http: status, code: at < 0 ? null : answer.slice(at + 8, answer.indexOf('"', at + 8)) })
      })
    })

  const probe = '/api/v1/openapi.json'
  const results = []
  results.push(await ctx.watched('multipart ending inside the file part', truncatedMultipart, probe))
  results.push(
    await ctx.watched(
      'SVG: CSS url( + 12,000 spaces',
      () =>
        uploadAndSettle(
          Buffer.from(
            `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><style>rect{fill:url(${spaces}}</style><rect width="64" height="64" fill="#08f"/></svg>`
          ),
          'image/svg+xml'
        ),
      probe
    )
  )
  results.push(
    await ctx.watched(
      'SVG 100×100 with a 144 MP PNG inside (data:)',
      async () => uploadAndSettle(await svgWithImage(12_000), 'image/svg+xml'),
      probe
    )
  )
  results.push(
    await ctx.watched(
      'SVG 100×100 with a 16,000² PNG inside (data:)',
      async () => uploadAndSettle(await svgWithImage(16_000), 'image/svg+xml'),
      probe
    )
  )
  results.push(
    await ctx.watched(
      'SVG filter (feMorphology r=500, feGaussianBlur σ=600, 3000²)',
      () =>
        uploadAndSettle(
          Buffer.from(
            `<svg xmlns="http://www.w3.org/2000/svg" width="3000" height="3000"><filter id="f"><feMorphology radius="500"/><feGaussianBlur stdDeviation="600"/></filter><rect width="3000" height="3000" fill="#f00" filter="url(#f)"/></svg>`
          ),
          'image/svg+xml'
        ),
      probe
    )
  )
  results.push(
    await ctx.watched(
      'next job: a 640×480 JPEG',
      async () =>
        uploadAndSettle(
          await sharp({ create: { width: 640, height: 480, channels: 3, background: '#c84' } })
            .jpeg()
            .toBuffer(),
          'image/jpeg'
        ),
      probe
    )
  )
  return results
}
