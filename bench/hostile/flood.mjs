/**
 * The idle-connection flood (docs/robustness.md, "Connection floods"): `clipdesk serve` of its
 * own under `ulimit -n 1024` (soft and hard, so that nothing raises it), a job uploaded, then
 * 1,100 loopback connections that send nothing held for 25 s by a client process with a higher
 * limit (bench/flood-client.mjs), `/api/v1/health` asked every 20 ms meanwhile (on a connection
 * opened before), one upload sent during the flood; then three uploads, one after another. The
 * job is uploaded once the processes the server started ahead have exited (30 s idle), so that
 * its sandbox processes start during the flood.
 *
 * Two rounds, each on a fresh server: the connections held once, then kept up (each reopened 1 s
 * after the server closed it, as an attacker would). Reports the flood's view (opened, closed by
 * the server), the server's answers and counts during it, its open descriptors at most (/proc),
 * the running job's end, each later upload's answer and its job's end, `/health` after, and
 * whether the server lived. Bounded: 1,100 connections, 25 s, each request and job given up
 * after 60 s / 2 min.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { floodClient } from '../flood-client.mjs'
import { children, cli, watched } from '../serve.mjs'

const FILE_LIMIT = 1024
const CONNECTIONS = 1100
const HOLD_MS = 25_000
const REQUEST_MS = 60_000
const JOB_MS = 120_000

function startLimited(dataDir) {
  const child = spawn(
    '/bin/sh',
    ['-c', `ulimit -n ${FILE_LIMIT} && exec "$0" "$@"`, process.execPath, cli, 'serve', '--port', '0', '--data-dir', dataDir],
    { stdio: ['ignore', 'pipe', 'ignore'] }
  )
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (c) => {
      out += c
      const port = /Listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]
      if (port) resolve({ child, port: Number(port), base: `http://127.0.0.1:${port}` })
    })
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)))
  })
}

const openFds = (pid) => {
  try {
    return readdirSync(`/proc/${pid}/fd`).length
  } catch {
    return 0
  }
}

/** Each run on a fresh server: connections held once, then kept up (each reopened 1 s after the server closed it). */
export default async function flood() {
  return [await round(0), await round(1000)]
}

/** A different photo each time: each job runs the model (no mask from the cache). */
let photos = 0
const photo = () => {
  const n = photos++
  return sharp({ create: { width: 640, height: 480, channels: 3, background: `#c8${(40 + (n % 13) * 16).toString(16)}` } })
    .composite([{ input: Buffer.from(`<svg width="640" height="480"><circle cx="${300 + n * 10}" cy="240" r="140" fill="#246"/></svg>`) }])
    .png()
    .toBuffer()
}

async function round(reopenMs) {
  const dataDir = mkdtempSync(join(tmpdir(), 'clipdesk-bench-flood-'))
  const made = spawnSync(process.execPath, [cli, 'keys', 'create', '--admin', '--credits', 'unlimited', '--data-dir', dataDir], {
    encoding: 'utf8'
  })
  if (made.status !== 0) throw new Error(made.stderr)
  const key = made.stdout.trim().split('\n').pop()
  const server = await startLimited(dataDir)
  const upload = async () => {
    const png = await photo()
    const t = performance.now()
    const form = new FormData()
    form.append('file', new Blob([png], { type: 'image/png' }), 'a.png')
    try {
      const res = await fetch(`${server.base}/api/v1/upload`, {
        method: 'POST',
        headers: { 'X-API-Key': key },
        body: form,
        signal: AbortSignal.timeout(REQUEST_MS)
      })
      const body = await res.json().catch(() => null)
      return { status: res.status, jobId: body?.job_id ?? null, code: body?.error?.code ?? null, ms: Math.round(performance.now() - t) }
    } catch (err) {
      return { status: null, error: err.cause?.code ?? err.name, ms: Math.round(performance.now() - t) }
    }
  }
  const settle = async (jobId) => {
    if (!jobId) return null
    const t = performance.now()
    while (performance.now() - t < JOB_MS) {
      try {
        const res = await fetch(`${server.base}/api/v1/status?job_id=${jobId}`, {
          headers: { 'X-API-Key': key },
          signal: AbortSignal.timeout(REQUEST_MS)
        })
        const body = await res.json()
        if (['done', 'failed', 'cancelled'].includes(body.status)) {
          return { status: body.status, reason: body.error?.reason ?? null, seconds: +((performance.now() - t) / 1000).toFixed(1) }
        }
      } catch {}
      await new Promise((r) => setTimeout(r, 250))
    }
    return { status: 'still pending after 2 min' }
  }
  const health = async () => {
    try {
      const res = await fetch(`${server.base}/api/v1/health`, { signal: AbortSignal.timeout(REQUEST_MS) })
      const body = await res.json()
      return { http: res.status, status: body.status, reason: body.reason ?? null, connections: body.connections ?? null }
    } catch (err) {
      return { http: null, error: err.cause?.code ?? err.name }
    }
  }

  let peakFds = 0
  const fdSampler = setInterval(() => {
    peakFds = Math.max(peakFds, openFds(server.child.pid))
  }, 100)
  try {
    // The processes the server started ahead exit after 30 s idle: a job run now starts its own,
    // as a job on a server that has been idle a while does, and some of them start during the flood.
    const idleSince = performance.now()
    while (children(server.child.pid).length > 0 && performance.now() - idleSince < 60_000) await new Promise((r) => setTimeout(r, 500))
    const running = await upload()
    const during = await watched(
      { ...server, key },
      `${CONNECTIONS} idle connections for ${HOLD_MS / 1000} s${reopenMs ? `, each reopened ${reopenMs / 1000} s after the server closed it` : ''}, serve under ulimit -n ${FILE_LIMIT}`,
      async () => {
        const f = floodClient(server.port, CONNECTIONS, HOLD_MS, reopenMs)
        const held = await f.held
        const healthDuring = await health()
        const uploadDuring = await upload()
        const done = await f.done
        return { flood: { ...done, phase: undefined, openWhenAllSent: held.open }, healthDuring, uploadDuring }
      },
      '/api/v1/health'
    )
    const runningJob = await settle(running.jobId)
    const duringJob = await settle(during.outcome.uploadDuring?.jobId)
    const after = []
    for (let i = 0; i < 3; i++) {
      const answer = await upload()
      after.push({ ...answer, job: await settle(answer.jobId) })
    }
    clearInterval(fdSampler)
    return [
      {
        ...during,
        fileLimit: FILE_LIMIT,
        serverPeakOpenFds: peakFds,
        jobRunningDuringFlood: { upload: running, end: runningJob },
        jobUploadedDuringFlood: duringJob,
        uploadsAfter: after,
        healthAfter: await health(),
        serverAliveAtEnd: server.child.exitCode === null && server.child.signalCode === null
      }
    ]
  } finally {
    clearInterval(fdSampler)
    server.child.kill('SIGTERM')
    await new Promise((r) => (server.child.exitCode !== null ? r() : server.child.once('exit', r)))
    rmSync(dataDir, { recursive: true, force: true })
  }
}
