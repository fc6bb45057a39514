#!/usr/bin/env node
/**
 * Studio-mode benchmark (`npm run bench:studio -- --workers 1,2,3 --jobs 40`): a real
 * `redis-server` on a free loopback port, `clipdesk serve --queue` without a local worker
 * (workers call it on its workers' listener, as remote workers would), and 1, 2, then 3
 * `clipdesk worker` processes on this machine; prints JSON: jobs/hour for each worker count
 * and the coordinator's overhead per job — its CPU time (intake, claims, result storing) and
 * the wall time a worker spends waiting on it (claim, input download, result upload).
 * Default: 40 timed jobs per worker count, about 5 minutes in all on an idle 2-core machine;
 * a run that would start past `--budget-min` (11) is skipped, so the whole stays within 12.
 *
 * `--chaos`: one run of `--jobs` (default 60) with 3 workers, one worker SIGKILLed twice
 * mid-job (restarted each time) and Redis restarted once (losing its data); prints whether
 * every job ended done with one result set, the charges and refunds, and temp files left.
 *
 * `--hostile`: a worker key's attacks and an idle full queue (`bench/studio-hostile.mjs`).
 * Measures, never asserts. Figures are inflated by anything else running on the machine.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir, availableParallelism } from 'node:os'
import { join } from 'node:path'
import Database from 'libsql'
import sharp from 'sharp'
import { cli, cliSync, cpuMs, freePort, requireStudioSetup, startRedis as startRedisOn, waitLine } from './studio-procs.mjs'

const redisServer = requireStudioSetup('bench:studio')
const argv = process.argv.slice(2)
if (argv.includes('--hostile')) {
  await import('./studio-hostile.mjs')
  process.exit(0)
}
const arg = (name, fallback) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? Number(argv[i + 1]) : fallback
}
const CHAOS = argv.includes('--chaos')
const JOBS = arg('jobs', CHAOS ? 60 : 40)
const countsArg = argv.includes('--workers') ? (argv[argv.indexOf('--workers') + 1] ?? '') : '1,2,3'
const COUNTS = CHAOS ? [3] : countsArg.split(',').map(Number)
if (COUNTS.some((n) => !Number.isInteger(n) || n < 1 || n > 16) || !Number.isInteger(JOBS) || JOBS < 1) {
  console.error('bench:studio: expected --workers as a list of counts (1,2,3) and --jobs as a whole number from 1 up')
  process.exit(2)
}
const THREADS = arg('threads', 1)
const BUDGET_MS = arg('budget-min', 11) * 60_000
const benchStarted = Date.now()
const log = (...a) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...a)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const startRedis = (port) => startRedisOn(redisServer, port)

/** Per job, as each worker logs it: wall ms on the worker, ms of it waiting on the coordinator. */
const jobLog = new Map()

async function startWorker(redisUrl, port, key, name) {
  const child = spawn(
    process.execPath,
    [
      cli,
      'worker',
      '--queue',
      redisUrl,
      '--coordinator',
      `http://127.0.0.1:${port}`,
      '--key',
      key,
      '--name',
      name,
      '--threads',
      String(THREADS),
      '--lock-ms',
      '5000'
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit']
    }
  )
  let partial = ''
  child.stdout.on('data', (d) => {
    const lines = (partial + d).split('\n')
    partial = lines.pop()
    for (const line of lines) {
      const m = /^(\S+)\tdone\t(\d+) ms\tcoordinator (\d+) ms$/.exec(line)
      if (m) jobLog.set(m[1], { ms: Number(m[2]), coordinatorMs: Number(m[3]) })
    }
  })
  await waitLine(child, /taking jobs/)
  return child
}

const mean = (xs) => (xs.length === 0 ? null : Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10) / 10)

async function run(workerCount, jobs, chaos) {
  const data = mkdtempSync(join(tmpdir(), 'clipdesk-studio-bench-'))
  const redisPort = await freePort()
  let redis = await startRedis(redisPort)
  const redisUrl = `redis://127.0.0.1:${redisPort}`
  const client = cliSync(['keys', 'create', '--credits', String(jobs + workerCount), '--data-dir', data])
  const workerKey = cliSync(['keys', 'create', '--worker', '--data-dir', data])
  const serve = spawn(
    process.execPath,
    [
      cli,
      'serve',
      '--port',
      '0',
      '--queue',
      redisUrl,
      '--no-local-worker',
      '--lock-ms',
      '5000',
      '--worker-listen',
      '127.0.0.1:0',
      '--data-dir',
      data
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit']
    }
  )
  const lines = await waitLine(serve, /Listening on http:\/\/127\.0\.0\.1:(\d+)[\s\S]*Workers listening on http:\/\/127\.0\.0\.1:(\d+)/)
  const apiPort = Number(lines[1])
  const port = Number(lines[2])
  const base = `http://127.0.0.1:${apiPort}`
  const workers = []
  for (let i = 0; i < workerCount; i++) workers.push(await startWorker(redisUrl, port, workerKey, `w${i + 1}`))
  // Every upload is a different photo (its subject moved by a pixel): each job runs the model,
  // none is answered from a worker's mask cache.
  let made = 0
  const nextPng = () => {
    const n = made++
    const cx = 110 + (n % 80)
    const cy = 105 + (Math.floor(n / 80) % 40)
    return sharp({ create: { width: 320, height: 240, channels: 3, background: '#d8e0e8' } })
      .composite([
        {
          input: Buffer.from(`<svg width="320" height="240"><ellipse cx="${cx}" cy="${cy}" rx="80" ry="70" fill="#c03020"/></svg>`),
          top: 0,
          left: 0
        }
      ])
      .png()
      .toBuffer()
  }
  const uploadOne = async () => {
    const png = await nextPng()
    for (;;) {
      const form = new FormData()
      form.append('file', new Blob([png], { type: 'image/png' }), 'in.png')
      const res = await fetch(`${base}/api/v1/upload`, { method: 'POST', headers: { 'X-API-Key': client }, body: form }).catch(() => null)
      if (res?.status === 202) return (await res.json()).job_id
      await sleep(1000)
    }
  }
  const status = async (id) => (await fetch(`${base}/api/v1/status?job_id=${id}`, { headers: { 'X-API-Key': client } })).json()
  // Polls only the jobs still pending, twice a second: the polling is the benchmark's own load
  // on the coordinator, counted in its CPU time per job.
  const settle = async (ids, onTick) => {
    const last = new Map()
    for (;;) {
      const pending = ids.filter((id) => !last.has(id) || last.get(id).state === 'pending')
      for (const [i, s] of (await Promise.all(pending.map(status))).entries()) last.set(pending[i], s)
      const all = ids.map((id) => last.get(id))
      if (onTick) await onTick(all)
      if (all.every((s) => s.state !== 'pending')) return all
      await sleep(500)
    }
  }
  // Warm every worker's model with one job each, outside the timed part.
  if (!chaos) {
    const warm = []
    for (let i = 0; i < workerCount; i++) warm.push(await uploadOne())
    await settle(warm)
  }
  const cpuBefore = cpuMs(serve.pid)
  const started = Date.now()
  const ids = []
  for (let i = 0; i < jobs; i++) ids.push(await uploadOne())
  let kills = 0
  let redisRestarted = false
  let killedAt = 0
  const final = await settle(ids, async (all) => {
    if (!chaos) return
    const running = all.filter((s) => s.status === 'segmenting').length
    const done = all.filter((s) => s.status === 'done').length
    if (kills < 2 && running > 0 && done >= kills * 15 + 3 && Date.now() - killedAt > 5000) {
      const victim = workers[0]
      victim.kill('SIGKILL')
      await new Promise((r) => victim.once('exit', r))
      kills++
      killedAt = Date.now()
      log(`killed worker w1 (${kills}) with ${done} done`)
      workers[0] = await startWorker(redisUrl, port, workerKey, 'w1')
    }
    if (!redisRestarted && done >= 30 * (jobs / 60)) {
      redis.kill('SIGKILL')
      await new Promise((r) => redis.once('exit', r))
      redis = await startRedis(redisPort)
      redisRestarted = true
      log(`restarted Redis with ${done} done`)
    }
  })
  const seconds = (Date.now() - started) / 1000
  const coordinatorCpuMs = cpuMs(serve.pid) - cpuBefore
  const logged = ids.map((id) => jobLog.get(id)).filter(Boolean)
  const result = {
    workers: workerCount,
    jobs,
    seconds: Math.round(seconds * 10) / 10,
    jobs_per_hour: Math.round((jobs * 3600) / seconds),
    coordinator_cpu_ms_per_job: Math.round(coordinatorCpuMs / jobs),
    coordinator_wall_ms_per_job: mean(logged.map((j) => j.coordinatorMs)),
    worker_ms_per_job: mean(logged.map((j) => j.ms)),
    jobs_logged_by_workers: logged.length
  }
  if (chaos) {
    const db = ledgerAndResults(join(data, 'clipdesk.db'))
    const files = readdirSync(data, { recursive: true }).map(String)
    Object.assign(result, {
      kills,
      redis_restarted: redisRestarted,
      done: final.filter((s) => s.status === 'done').length,
      not_done: final.filter((s) => s.status !== 'done').map((s) => s.error ?? s.status),
      ...db,
      temp_files_left: files.filter((f) => f.endsWith('.part')).length,
      result_dirs_with_other_than_one_file: ids.filter((id) => readdirSync(join(data, 'results', id)).length !== 1).length
    })
  }
  for (const w of workers) w.kill('SIGTERM')
  await Promise.all(workers.map((w) => (w.exitCode === null ? new Promise((r) => w.once('exit', r)) : null)))
  serve.kill('SIGTERM')
  await new Promise((r) => serve.once('exit', r))
  redis.kill('SIGKILL')
  rmSync(data, { recursive: true, force: true })
  return result
}

const runs = []
const skipped = []
for (const n of COUNTS) {
  if (Date.now() - benchStarted > BUDGET_MS) {
    log(`skipping ${n} worker(s): past the ${BUDGET_MS / 60_000}-minute budget (--budget-min)`)
    skipped.push(n)
    continue
  }
  log(`${n} worker(s), ${JOBS} jobs${CHAOS ? ', chaos' : ''}`)
  runs.push(await run(n, JOBS, CHAOS))
  log(JSON.stringify(runs.at(-1)))
}
console.log(
  JSON.stringify(
    {
      cores: availableParallelism(),
      threads_per_worker: THREADS,
      image: '320x240 PNG (a different photo each job), mode clipping, model medium',
      note: "Worker processes share this machine's cores: past the core count more workers add no throughput. On separate machines each worker adds its own jobs/hour.",
      overhead:
        'coordinator_cpu_ms_per_job: CPU time of the coordinator process per job (intake, claim, storing results). coordinator_wall_ms_per_job: wall time a worker waits on the coordinator per job (claim, input download, result upload), over loopback.',
      total_seconds: Math.round((Date.now() - benchStarted) / 1000),
      ...(skipped.length > 0 ? { skipped_worker_counts: skipped } : {}),
      runs
    },
    null,
    2
  )
)

/** The chaos run's bookkeeping, read from the coordinator's SQLite file: credits charged and refunded, results stored, most attempts. */
function ledgerAndResults(file) {
  const db = new Database(file, { readonly: true })
  try {
    const ledger = Object.fromEntries(
      db
        .prepare('SELECT reason, count(*) AS n FROM credit_ledger WHERE job_id IS NOT NULL GROUP BY reason')
        .all()
        .map((r) => [r.reason, r.n])
    )
    const results = db.prepare('SELECT count(*) AS rows_, count(DISTINCT job_id) AS jobs FROM results').get()
    const attempts = db.prepare('SELECT max(attempts) AS n FROM jobs').get()
    return {
      charges: ledger.charge ?? 0,
      refunds: ledger.refund ?? 0,
      result_rows: results.rows_,
      jobs_with_results: results.jobs,
      max_attempts: attempts.n
    }
  } finally {
    db.close()
  }
}
