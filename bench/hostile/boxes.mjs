#!/usr/bin/env node
/**
 * Look-again boxes as an attack (a part of `npm run bench:hostile`; alone:
 * `node bench/hostile/boxes.mjs [--jobs 3] [--size 1600x1200] [--rounds near-full,strips]`). One key sends box-heavy jobs,
 * then a second key sends one small job; measured: what each upload was answered, the credits
 * each key was charged, how long the small job waited from its 202 to its end, the order the
 * jobs started in, and `/health` while all of it runs (p99, slowest, peak RSS of the server and
 * its sandboxes). Two rounds: eight boxes covering nearly the whole photo each, and eight strips
 * covering it once between them. Prints JSON; measures, never asserts.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import sharp from 'sharp'
import { cli, requireBuilt, startServer, watched } from '../serve.mjs'

/** A key made with the CLI on the running server's data folder (applies at once): its id and secret. */
function makeKey(dataDir, credits) {
  const r = spawnSync(process.execPath, [cli, 'keys', 'create', '--credits', String(credits), '--data-dir', dataDir], { encoding: 'utf8' })
  const lines = r.stdout.trim().split('\n')
  return { id: /Created (\S+)/.exec(r.stdout)?.[1], secret: lines.at(-1) }
}

function balance(dataDir, id) {
  const r = spawnSync(process.execPath, [cli, 'keys', 'list', '--data-dir', dataDir], { encoding: 'utf8' })
  const line = r.stdout.split('\n').find((l) => l.startsWith(`${id}\t`))
  const m = line ? /credits: (\S+)/.exec(line) : null
  return m ? (m[1] === 'unlimited' ? null : Number(m[1])) : null
}

/** A photo-like scene: a soft gradient with a dark disc, and a small square far from it. */
function scene(width, height) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#dde4ea"/><stop offset="1" stop-color="#9aa7b4"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/>
    <circle cx="${width * 0.4}" cy="${height * 0.55}" r="${Math.min(width, height) * 0.3}" fill="#3a2a1c"/>
    <rect x="${width * 0.82}" y="${height * 0.1}" width="${width * 0.08}" height="${width * 0.08}" fill="#b03020"/></svg>`
  return sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer()
}

async function upload(base, secret, bytes, regions) {
  const form = new FormData()
  form.append('output_format', 'png')
  if (regions) form.append('regions', JSON.stringify(regions))
  form.append('file', new Blob([bytes], { type: 'image/jpeg' }), 'photo.jpg')
  const res = await fetch(`${base}/api/v1/upload`, { method: 'POST', headers: { 'x-api-key': secret }, body: form })
  const body = await res.json()
  return res.status === 202
    ? { http: 202, jobId: body.job_id }
    : { http: res.status, code: body.error?.code, field: body.error?.details?.[0]?.field }
}

/** Polls until the job ends: its status and when (ms, performance clock) it was first seen running and ended. */
async function settle(base, secret, jobId) {
  let startedAt = null
  for (;;) {
    const res = await fetch(`${base}/api/v1/status?job_id=${jobId}`, { headers: { 'x-api-key': secret } })
    const body = await res.json()
    if (startedAt === null && body.status !== 'queued') startedAt = performance.now()
    if (body.state !== 'pending')
      return { status: body.status, reason: body.error?.reason, startedAt: startedAt ?? performance.now(), endedAt: performance.now() }
    await new Promise((r) => setTimeout(r, 100))
  }
}

/**
 * One round: `jobs` uploads from `heavy`, each with `regions`, then one small job from `light`.
 * The small job's wait is from its 202 to its end.
 */
async function round(server, { heavy, light, photo, small, regions, jobs }) {
  const { base, dataDir } = server
  const before = { heavy: balance(dataDir, heavy.id), light: balance(dataDir, light.id) }
  const answers = []
  for (let i = 0; i < jobs; i++) answers.push(await upload(base, heavy.secret, photo, regions))
  const lightAnswer = await upload(base, light.secret, small, null)
  const t0 = performance.now()
  const accepted = answers.filter((a) => a.http === 202)
  const [lightEnd, ...heavyEnds] = await Promise.all([
    lightAnswer.http === 202 ? settle(base, light.secret, lightAnswer.jobId) : null,
    ...accepted.map((a) => settle(base, heavy.secret, a.jobId))
  ])
  const starts = [
    ...heavyEnds.map((e) => ({ who: 'heavy', at: e.startedAt })),
    ...(lightEnd ? [{ who: 'light', at: lightEnd.startedAt }] : [])
  ].sort((a, b) => a.at - b.at)
  const after = { heavy: balance(dataDir, heavy.id), light: balance(dataDir, light.id) }
  const charged = (k) => (before[k] === null || after[k] === null ? null : before[k] - after[k])
  return {
    heavyAnswers: answers.map(({ jobId, ...a }) => a),
    heavyStatuses: heavyEnds.map((e) => e.status),
    creditsCharged: { heavy: charged('heavy'), light: charged('light') },
    lightJob: lightEnd
      ? {
          status: lightEnd.status,
          waitS: +((lightEnd.endedAt - t0) / 1000).toFixed(2),
          startedAfterHeavyJobs: starts.findIndex((s) => s.who === 'light')
        }
      : lightAnswer,
    allSettledS: +((Math.max(...heavyEnds.map((e) => e.endedAt), lightEnd?.endedAt ?? t0) - t0) / 1000).toFixed(2)
  }
}

/**
 * The attack on a running server (`{ child, base, dataDir }`): makes its own two keys and
 * gives one result per round.
 */
export default boxes

export async function boxes(server, { jobs = 3, width = 1600, height = 1200, rounds = ['near-full', 'strips'] } = {}) {
  const heavy = makeKey(server.dataDir, 100_000)
  const light = makeKey(server.dataDir, 10)
  const photo = await scene(width, height)
  const small = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#c84' } })
    .jpeg()
    .toBuffer()
  for (let i = 0; i < 5; i++) await (await fetch(`${server.base}/api/v1/health`)).arrayBuffer()
  const nearFull = Array.from({ length: 8 }, (_, i) => ({ x: i % 2, y: (i >> 1) % 2, width: width - 2, height: height - 2 }))
  const strip = Math.floor(width / 8)
  const strips = Array.from({ length: 8 }, (_, i) => ({ x: i * strip, y: 0, width: strip, height }))
  const results = []
  const named = {
    'near-full': [`${jobs} jobs × 8 near-full boxes (${width}×${height}), then another key's 640×480 job`, nearFull],
    strips: [`${jobs} jobs × 8 strips covering the photo once (${width}×${height}), then another key's 640×480 job`, strips]
  }
  for (const [name, regions] of rounds.map((r) => named[r])) {
    results.push(await watched(server, name, () => round(server, { heavy, light, photo, small, regions, jobs }), '/api/v1/health'))
  }
  return results
}

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`)
  return at < 0 ? fallback : process.argv[at + 1]
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  requireBuilt('bench/hostile/boxes.mjs')
  const [width, height] = option('size', '1600x1200').split('x').map(Number)
  const dataDir = mkdtempSync(join(tmpdir(), 'clipdesk-bench-boxes-'))
  const { child, port } = await startServer(dataDir, [])
  try {
    const results = await boxes(
      { child, base: `http://127.0.0.1:${port}`, dataDir },
      { jobs: Number(option('jobs', 3)), width, height, rounds: option('rounds', 'near-full,strips').split(',') }
    )
    console.log(JSON.stringify({ serverAlive: child.exitCode === null, results }, null, 2))
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      await new Promise((r) => child.once('exit', r))
    }
    rmSync(dataDir, { recursive: true, force: true })
  }
}
