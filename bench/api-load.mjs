#!/usr/bin/env node
/**
 * Load benchmark of the local API (`npm run bench:api`): starts `clipdesk serve --paused` on a
 * temp data folder (loopback only), drives it with autocannon, and prints JSON:
 * status throughput and latency at 1,000 req/s, uploads (JSON file_url and multipart), the
 * bare openapi.json baseline, and the server's memory per queued job after 10,000 uploads; then,
 * on a second server that runs jobs, one photo's latency through `/v1.0/removebg` beside the same
 * job through `/api/v1` (removebg-latency.mjs; `--photo <path>`, `--rounds`, `--poll-ms`;
 * `--latency-only` skips the load part). Bounded in count and time; measures, never asserts.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { requireBuilt, startServer } from './serve.mjs'
import { removeBgLatency } from './removebg-latency.mjs'
import autocannon from 'autocannon'
import sharp from 'sharp'

requireBuilt('bench:api')
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const QUEUED = arg('jobs', 10_000)
const MULTIPART = arg('multipart', 2_000)
const SECONDS = arg('seconds', 10)
const ROUNDS = arg('rounds', 3)
const POLL_MS = arg('poll-ms', 100)
const photoAt = process.argv.indexOf('--photo')
const PHOTO = photoAt > 0 ? process.argv[photoAt + 1] : null
const LATENCY_ONLY = process.argv.includes('--latency-only')

/** The latency part, on its own server (jobs run) and data folder. */
async function latency() {
  const dir = mkdtempSync(join(tmpdir(), 'clipdesk-bench-removebg-'))
  const server = await startServer(dir)
  try {
    return await removeBgLatency({
      base: `http://127.0.0.1:${server.port}`,
      key: server.key,
      photoPath: PHOTO,
      rounds: ROUNDS,
      pollMs: POLL_MS
    })
  } finally {
    server.child.kill('SIGTERM')
    await new Promise((r) => server.child.on('exit', r))
    rmSync(dir, { recursive: true, force: true })
  }
}

if (LATENCY_ONLY) {
  console.log(JSON.stringify({ bench: 'api', node: process.version, removebgLatency: await latency() }, null, 2))
  process.exit(0)
}

function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 }
}

function run(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: 10, pipelining: 1, ...opts }, (err, result) => (err ? reject(err) : resolve(result)))
  })
}

function summary(r) {
  return {
    requests: r.requests.total,
    reqPerSec: Math.round(r.requests.average),
    latencyMs: { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max },
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'clipdesk-bench-api-'))
const { child, port, key } = await startServer(dataDir, ['--paused'])
const base = `http://127.0.0.1:${port}`
try {
  const headers = { 'x-api-key': key }
  // One job to ask the status of.
  const first = await fetch(`${base}/api/v1/upload`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ file_url: 'http://127.0.0.1:9/never-fetched.png' })
  }).then((r) => r.json())

  const baseline = summary(await run({ url: `${base}/api/v1/openapi.json`, duration: SECONDS }))
  const statusMax = summary(await run({ url: `${base}/api/v1/status?job_id=${first.job_id}`, headers, duration: SECONDS }))
  const statusAt1000 = summary(
    await run({ url: `${base}/api/v1/status?job_id=${first.job_id}`, headers, duration: SECONDS, overallRate: 1000 })
  )

  const memBefore = rssOf(child.pid)
  const dbBefore = statSync(join(dataDir, 'clipdesk.db')).size
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a7' } })
    .png()
    .toBuffer()
  const boundary = 'clipdeskbench'
  const multipartBody = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="output_format"\r\n\r\nwebp\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`
    ),
    png,
    Buffer.from(`\r\n--${boundary}--\r\n`)
  ])
  const uploadMultipart = summary(
    await run({
      url: `${base}/api/v1/upload`,
      method: 'POST',
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: multipartBody,
      amount: MULTIPART
    })
  )
  const uploadJson = summary(
    await run({
      url: `${base}/api/v1/upload`,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ file_url: 'http://127.0.0.1:9/never-fetched.png', output_format: 'png' }),
      amount: QUEUED - MULTIPART - 1
    })
  )
  const memAfter = rssOf(child.pid)
  const dbAfter = statSync(join(dataDir, 'clipdesk.db')).size
  const queued = QUEUED
  // One more must be refused: the queue limit is 10,000 waiting jobs.
  const overflow = await fetch(`${base}/api/v1/upload`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ file_url: 'http://127.0.0.1:9/x.png' })
  })

  // The load server is done with: the latency server runs alone.
  child.kill('SIGTERM')
  await new Promise((r) => child.on('exit', r))
  const removebgLatency = await latency()
  console.log(
    JSON.stringify(
      {
        bench: 'api',
        removebgLatency,
        node: process.version,
        seconds: SECONDS,
        baselineOpenapi: baseline,
        statusMax,
        statusAt1000,
        statusP99VsBaselineP99: baseline.latencyMs.p99 ? +(statusAt1000.latencyMs.p99 / baseline.latencyMs.p99).toFixed(2) : null,
        statusThroughputVsBaseline: +(statusMax.reqPerSec / baseline.reqPerSec).toFixed(2),
        uploadMultipart,
        uploadJson,
        queue: {
          jobsAccepted: queued,
          errors: uploadMultipart.non2xx + uploadJson.non2xx + uploadMultipart.errors + uploadJson.errors,
          overflowStatus: overflow.status,
          rssBeforeMb: +memBefore.rssMb.toFixed(1),
          rssAfterMb: +memAfter.rssMb.toFixed(1),
          rssPerJobKb: +(((memAfter.rssMb - memBefore.rssMb) * 1024) / queued).toFixed(2),
          dbBytesPerJob: Math.round((dbAfter - dbBefore) / queued),
          peakRssMb: +memAfter.peakMb.toFixed(1)
        }
      },
      null,
      2
    )
  )
} finally {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM')
    await new Promise((r) => child.on('exit', r))
  }
  rmSync(dataDir, { recursive: true, force: true })
}
