/**
 * Large base64 bodies on `/v1.0/removebg` while `/api/v1/health` is polled: three keys each send
 * a 40 MB image as `image_file_b64` in a JSON body, one after another, for `LOOP_MS`, following
 * `Retry-After` on a 503 as a well-behaved client does. The body is parsed and decoded off the
 * main thread (`http/removebg/text-body.ts`); the probe's p50/p99 say whether the event loop
 * stayed free (target p99 < 200 ms). The photo is a small drawn scene padded with JPEG comments
 * to 40 MB, so that the model's run (its mask cached after the first) does not dominate.
 */
import sharp from 'sharp'

const LOOP_MS = 30_000
const KEYS = 3
const IMAGE_BYTES = 40_000_000

/** A JPEG of `size` bytes: a drawn subject, comment segments (COM, skipped by decoders) after SOI. */
async function paddedJpeg(size) {
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240"><rect width="320" height="240" fill="#8ab"/><circle cx="160" cy="120" r="70" fill="#c33"/></svg>'
  const jpeg = await sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer()
  const parts = [jpeg.subarray(0, 2)]
  let left = size - jpeg.length
  while (left > 4) {
    const n = Math.min(65_533, left - 4)
    const head = Buffer.from([0xff, 0xfe, 0, 0])
    head.writeUInt16BE(n + 2, 2)
    parts.push(head, Buffer.alloc(n, 0x20))
    left -= n + 4
  }
  parts.push(jpeg.subarray(2))
  return Buffer.concat(parts)
}

export default async function base64Loop(ctx) {
  const body = JSON.stringify({ image_file_b64: (await paddedJpeg(IMAGE_BYTES)).toString('base64'), size: 'auto' })
  const keys = Array.from({ length: KEYS }, () => ctx.key(['--credits', 'unlimited']))
  // `ctx.key` blocks this process for seconds: a kept-alive connection the server closed
  // meanwhile is noticed only once the event loop turns. Without the pause the first POST may
  // be written on it and fail with EPIPE, a client race that says nothing of the server.
  await new Promise((r) => setTimeout(r, 200))
  const row = await ctx.watched(
    `${KEYS} keys, each a 40 MB image as base64 in JSON (${(body.length / 1e6).toFixed(1)} MB bodies) in a loop for ${LOOP_MS / 1000} s`,
    async () => {
      const until = performance.now() + LOOP_MS
      const perKey = await Promise.all(
        keys.map(async (key) => {
          const statuses = {}
          let retryWaitS = 0
          const ms = []
          while (performance.now() < until) {
            const t = performance.now()
            let status
            let retryAfter = null
            try {
              const res = await fetch(`${ctx.server.base}/v1.0/removebg`, {
                method: 'POST',
                headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' },
                body
              })
              await res.arrayBuffer()
              status = res.status
              retryAfter = res.headers.get('retry-after')
            } catch (err) {
              status = `error ${err.cause?.code ?? err.message}`
            }
            statuses[status] = (statuses[status] ?? 0) + 1
            if (status === 200) ms.push(performance.now() - t)
            if (status === 503 && retryAfter) {
              retryWaitS += Number(retryAfter)
              await new Promise((r) => setTimeout(r, Number(retryAfter) * 1000))
            }
          }
          ms.sort((a, b) => a - b)
          return { statuses, retryWaitS, medianAnswerS: ms.length ? +(ms[Math.floor(ms.length / 2)] / 1000).toFixed(2) : null }
        })
      )
      return { perKey, everyKeyServed: perKey.every((k) => (k.statuses[200] ?? 0) > 0) }
    },
    '/api/v1/health'
  )
  return [row]
}
