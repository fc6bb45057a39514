/**
 * One photo's latency through the remove.bg-compatible endpoint (one synchronous request)
 * beside the same job through `/api/v1` (upload, poll the status, download the result), on a
 * running `clipdesk serve` (part of `npm run bench:api`). The same parameter set both ways; each
 * round's photo differs by one pixel so that no run reuses another's cached mask. Measures,
 * never asserts.
 */
import { readFileSync } from 'node:fs'
import sharp from 'sharp'

/** What /v1.0/removebg with size=auto, format=png asks the engine for (http/removebg/mapping.ts). */
const SAME_SET = { background: 'transparent', shadow: 'none', variations: ['clipping', 'mask'], primary: 'clipping' }

/** The photo of round `n`: the source with its first pixel set to `n`, as JPEG. */
async function photoOf(raw, info, n) {
  const data = Buffer.from(raw)
  data[0] = n % 256
  data[1] = Math.floor(n / 256) % 256
  return sharp(data, { raw: info }).jpeg({ quality: 92 }).toBuffer()
}

function form(fields, part, bytes) {
  const f = new FormData()
  for (const [k, v] of Object.entries(fields)) f.append(k, v)
  f.append(part, new Blob([bytes], { type: 'image/jpeg' }), 'photo.jpg')
  return f
}

async function viaRemoveBg(base, key, photo) {
  const t0 = performance.now()
  const res = await fetch(`${base}/v1.0/removebg`, {
    method: 'POST',
    headers: { 'X-Api-Key': key },
    body: form({ size: 'auto', format: 'png' }, 'image_file', photo)
  })
  const bytes = Buffer.from(await res.arrayBuffer())
  if (res.status !== 200) throw new Error(`removebg ${res.status}: ${bytes.toString('utf8').slice(0, 300)}`)
  return { ms: performance.now() - t0, bytes: bytes.length }
}

async function viaApiV1(base, key, photo, pollMs) {
  const t0 = performance.now()
  const up = await fetch(`${base}/api/v1/upload`, {
    method: 'POST',
    headers: { 'X-API-Key': key },
    body: form({ mode: 'params', params: JSON.stringify(SAME_SET), output_format: 'png' }, 'file', photo)
  })
  const accepted = await up.json()
  if (up.status !== 202) throw new Error(`upload ${up.status}: ${JSON.stringify(accepted)}`)
  let polls = 0
  for (;;) {
    polls++
    const status = await fetch(`${base}/api/v1/status?job_id=${accepted.job_id}`, { headers: { 'X-API-Key': key } }).then((r) => r.json())
    if (status.state === 'done') {
      const bytes = Buffer.from(await (await fetch(status.final_url)).arrayBuffer())
      return { ms: performance.now() - t0, bytes: bytes.length, polls }
    }
    if (status.state !== 'pending') throw new Error(`job ended ${status.status}: ${JSON.stringify(status.error)}`)
    await new Promise((r) => setTimeout(r, pollMs))
  }
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return { medianMs: Math.round(s[Math.floor(s.length / 2)]), minMs: Math.round(s[0]), maxMs: Math.round(s[s.length - 1]) }
}

/**
 * `rounds` alternating pairs after three warm-up jobs (model loaded, sandboxes started).
 * `photoPath` null: a drawn 1024×768 scene.
 */
export async function removeBgLatency({ base, key, photoPath, rounds, pollMs }) {
  const source = photoPath
    ? sharp(readFileSync(photoPath)).rotate()
    : sharp(
        Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="768"><rect width="1024" height="768" fill="#dfe6ee"/><ellipse cx="460" cy="380" rx="260" ry="220" fill="#c33"/></svg>'
        )
      )
  const { data: raw, info } = await source.removeAlpha().raw().toBuffer({ resolveWithObject: true })
  // Warm-up: the model loads, the sandboxes start, and the session settles its threads over its first runs.
  for (let w = 0; w < 3; w++) await viaApiV1(base, key, await photoOf(raw, info, 1000 + w), pollMs)
  const removebg = []
  const apiV1 = []
  let polls = 0
  for (let n = 1; n <= rounds; n++) {
    // Alternating, each first in turn, so that neither always runs on a warmer machine.
    const a = await photoOf(raw, info, 2 * n)
    const b = await photoOf(raw, info, 2 * n + 1)
    if (n % 2) {
      removebg.push((await viaRemoveBg(base, key, a)).ms)
      const r = await viaApiV1(base, key, b, pollMs)
      apiV1.push(r.ms)
      polls += r.polls
    } else {
      const r = await viaApiV1(base, key, b, pollMs)
      apiV1.push(r.ms)
      polls += r.polls
      removebg.push((await viaRemoveBg(base, key, a)).ms)
    }
  }
  const rb = stats(removebg)
  const v1 = stats(apiV1)
  return {
    photo: photoPath ? photoPath.split('/').pop() : 'drawn scene',
    size: `${info.width}x${info.height}`,
    rounds,
    pollIntervalMs: pollMs,
    removebgSync: rb,
    apiV1UploadPollDownload: { ...v1, pollsPerJob: +(polls / rounds).toFixed(1) },
    removebgVsApiV1Median: +(rb.medianMs / v1.medianMs).toFixed(2)
  }
}
