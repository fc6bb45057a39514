/**
 * Studio mode under a hostile worker key (`npm run bench:studio -- --hostile`): a real Redis,
 * `clipdesk serve --queue` without a local worker and with its default limits, driven by hand
 * as an attacker holding a worker key would. Prints JSON: for each attack the answer, how long
 * it took, the coordinator's peak RSS over its RSS before (sampled from /proc every 50 ms) and
 * the slowest `GET /api/v1/health` answer meanwhile (polled every 100 ms); then what an idle
 * queue of 10,000 jobs costs: Redis commands per second and the CPU of the coordinator and of
 * Redis. Measures, never asserts.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { cli, cliSync, cpuMs, freePort, requireStudioSetup, rssMb, startRedis, waitLine } from './studio-procs.mjs'

const MB = 1024 * 1024
const QUEUED = Number(process.argv[process.argv.indexOf('--queued') + 1]) || 10_000
const log = (...a) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...a)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

const redisServer = requireStudioSetup('bench:studio --hostile')
const data = mkdtempSync(join(tmpdir(), 'clipdesk-studio-hostile-'))
const redisPort = await freePort()
const redis = await startRedis(redisServer, redisPort)
const redisUrl = `redis://127.0.0.1:${redisPort}`
const client = cliSync(['keys', 'create', '--credits', String(QUEUED + 100), '--data-dir', data])
const workerKey = cliSync(['keys', 'create', '--worker', '--data-dir', data])
const serve = spawn(
  process.execPath,
  [cli, 'serve', '--port', '0', '--queue', redisUrl, '--no-local-worker', '--lock-ms', '30000', '--data-dir', data],
  { stdio: ['ignore', 'pipe', 'inherit'] }
)
const port = Number((await waitLine(serve, /Listening on http:\/\/127\.0\.0\.1:(\d+)/))[1])
const base = `http://127.0.0.1:${port}`
const workerHeaders = (token) => ({
  'X-API-Key': workerKey,
  'X-Clipdesk-Studio': '3',
  'X-Clipdesk-Worker': 'attacker',
  ...(token ? { 'X-Clipdesk-Claim': token } : {})
})

async function untilAvailable() {
  for (;;) {
    const r = await fetch(`${base}/api/v1/studio/hello`, {
      method: 'POST',
      headers: { ...workerHeaders(), 'Content-Type': 'application/json' },
      body: '{}'
    }).catch(() => null)
    if (r?.status === 200) return
    await sleep(200)
  }
}

async function newJob(png) {
  for (;;) {
    const form = new FormData()
    form.append('file', new Blob([png], { type: 'image/png' }), 'in.png')
    const res = await fetch(`${base}/api/v1/upload`, { method: 'POST', headers: { 'X-API-Key': client }, body: form })
    if (res.status === 202) return (await res.json()).job_id
    await sleep(500)
  }
}

async function claim(jobId) {
  const res = await fetch(`${base}/api/v1/studio/claim`, {
    method: 'POST',
    headers: { ...workerHeaders(), 'Content-Type': 'application/json' },
    body: JSON.stringify({ job_id: jobId })
  })
  return (await res.json()).job
}

/** Streams `total` bytes as one result file part (declared or chunked); resolves with the answer. */
function sendResult(jobId, token, total, declare) {
  return new Promise((resolve) => {
    const boundary = 'hostileboundary'
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="clipping.png"; filename="clipping.png"\r\n\r\n`)
    // A well-formed body: the file part (bytes that are no PNG), then the meta part.
    const tail = Buffer.from(
      `\r\n--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\n\r\n{"device":"cpu"}\r\n--${boundary}--\r\n`
    )
    const headers = {
      ...workerHeaders(token),
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      ...(declare ? { 'Content-Length': String(head.length + total + tail.length) } : {})
    }
    const started = performance.now()
    const req = request({ host: '127.0.0.1', port, path: `/api/v1/studio/result/${jobId}`, method: 'POST', headers })
    let answered = false
    const chunk = Buffer.alloc(MB, 0x41)
    let sent = 0
    const done = (status, body) => {
      if (answered) return
      answered = true
      req.destroy()
      resolve({ status, code: body ? safeCode(body) : null, ms: Math.round(performance.now() - started), sent_mb: Math.round(sent / MB) })
    }
    req.on('response', (res) => {
      let body = ''
      res.on('data', (d) => (body += d))
      res.on('end', () => done(res.statusCode, body))
    })
    req.on('error', (err) => done(0, `{"error":{"code":"${err.code}"}}`))
    req.write(head)
    const pump = () => {
      while (!answered && sent < total) {
        const piece = chunk.subarray(0, Math.min(chunk.length, total - sent))
        sent += piece.length
        if (!req.write(piece)) return void req.once('drain', pump)
      }
      if (!answered && sent >= total) req.end(tail)
    }
    pump()
  })
}

function safeCode(body) {
  try {
    return JSON.parse(body).error?.code ?? 'ok'
  } catch {
    return null
  }
}

/** Runs `attack` while sampling the coordinator's RSS and polling /health. */
async function measured(name, attack) {
  const before = rssMb(serve.pid)
  let peak = before
  let slowest = 0
  let polling = true
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(serve.pid))), 50)
  const poller = (async () => {
    while (polling) {
      const t = performance.now()
      await fetch(`${base}/api/v1/health`)
        .then((r) => r.arrayBuffer())
        .catch(() => null)
      slowest = Math.max(slowest, performance.now() - t)
      await sleep(100)
    }
  })()
  const answers = await attack()
  polling = false
  await poller
  clearInterval(sampler)
  const row = {
    attack: name,
    answers,
    rss_before_mb: before,
    rss_peak_mb: peak,
    rss_growth_mb: peak - before,
    slowest_health_ms: Math.round(slowest)
  }
  log(JSON.stringify(row))
  return row
}

function redisCommands() {
  return new Promise((resolve, reject) => {
    const s = connect(redisPort, '127.0.0.1')
    let text = ''
    s.on('error', reject)
    s.on('data', (d) => {
      text += d
      const m = /total_commands_processed:(\d+)\r\n/.exec(text)
      if (m) {
        s.destroy()
        resolve(Number(m[1]))
      }
    })
    s.write('INFO stats\r\n')
  })
}

await untilAvailable()
const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#808080' } })
  .png()
  .toBuffer()
const attacks = []
const maxResultMb = 8 * 50

attacks.push(
  await measured('390 MB result for a job the key never claimed (no token)', async () => [
    await sendResult(await newJob(png), null, 390 * MB, true)
  ])
)
attacks.push(
  await measured(`1 GB chunked result for a claimed job (limit ${maxResultMb} MB)`, async () => {
    const job = await claim(await newJob(png))
    return [await sendResult(job.job_id, job.token, 1024 * MB, false)]
  })
)
attacks.push(
  await measured('four 390 MB results at once for claimed jobs (budget: two)', async () => {
    const jobs = []
    for (let i = 0; i < 4; i++) jobs.push(await claim(await newJob(png)))
    return Promise.all(jobs.map((j) => sendResult(j.job_id, j.token, 390 * MB, true)))
  })
)

// An idle full queue: QUEUED jobs that no worker takes (URL jobs: nothing is fetched before a claim).
log(`queueing ${QUEUED} jobs`)
for (let i = 0; i < QUEUED; i += 100) {
  await Promise.all(
    Array.from({ length: Math.min(100, QUEUED - i) }, () =>
      fetch(`${base}/api/v1/upload`, {
        method: 'POST',
        headers: { 'X-API-Key': client, 'Content-Type': 'application/json' },
        body: JSON.stringify({ file_url: 'http://198.51.100.1/a.png' })
      }).then((r) => r.arrayBuffer())
    )
  )
}
await sleep(3000) // let the last offers settle
const window = 10_000
const c0 = await redisCommands()
const coord0 = cpuMs(serve.pid)
const redis0 = cpuMs(redis.pid)
await sleep(window)
const idle = {
  queued: QUEUED,
  seconds: window / 1000,
  redis_commands_per_second: Math.round(((await redisCommands()) - c0 - 1) / (window / 1000)),
  coordinator_cpu_percent: Math.round(((cpuMs(serve.pid) - coord0) / window) * 1000) / 10,
  redis_cpu_percent: Math.round(((cpuMs(redis.pid) - redis0) / window) * 1000) / 10
}
log(JSON.stringify(idle))

serve.kill('SIGTERM')
await new Promise((r) => serve.once('exit', r))
redis.kill('SIGKILL')
rmSync(data, { recursive: true, force: true })
console.log(
  JSON.stringify({ limits: { max_result_mb: maxResultMb, in_flight_budget_mb: 2 * maxResultMb }, attacks, idle_queue: idle }, null, 2)
)
