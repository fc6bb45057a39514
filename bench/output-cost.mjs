#!/usr/bin/env node
/**
 * Output-cost benchmark (`npm run bench:output-cost`): starts `clipdesk serve` on a temp data
 * folder (loopback only) and sends a small upload (a 400×300 PNG of noise, ~360 KB) asking for
 * very large outputs, while a second client asks `GET /api/v1/health` every 20 ms. Prints JSON:
 * each request's answer (the refusal, or the job's end, its output bytes and what is left on
 * the key), the slowest health answer and the slowest status answer (polled every 100 ms)
 * meanwhile, and the peak resident memory of the server and of its sandbox processes, with the
 * CPU model and the load average. The results are measured on disk, not downloaded.
 * Measures, never asserts. Options: `--skip-large` leaves out the accepted 10000² jobs.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { cli, requireBuilt, startServer, watched } from './serve.mjs'

requireBuilt('bench:output-cost')
const skipLarge = process.argv.includes('--skip-large')

const dataDir = mkdtempSync(join(tmpdir(), 'clipdesk-bench-output-cost-'))
const { child, port, key } = await startServer(dataDir, [])
const server = { child, base: `http://127.0.0.1:${port}` }

/** A key with `credits`, made with the CLI on the running server's data folder (applies at once). */
function limitedKey(credits) {
  const r = spawnSync(process.execPath, [cli, 'keys', 'create', '--credits', String(credits), '--data-dir', dataDir], { encoding: 'utf8' })
  return r.stdout.trim().split('\n').pop()
}

function balanceOf(secret) {
  const r = spawnSync(process.execPath, [cli, 'keys', 'list', '--data-dir', dataDir], { encoding: 'utf8' })
  const line = r.stdout.split('\n').find((l) => l.includes(secret.slice(0, 8)))
  return line ?? null
}

async function upload(bytes, fields, apiKey) {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  form.append('file', new Blob([bytes], { type: 'image/png' }), 'small.png')
  const t = performance.now()
  const res = await fetch(`${server.base}/api/v1/upload`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form })
  return { status: res.status, body: await res.json(), ms: +(performance.now() - t).toFixed(1) }
}

/** Polls the job's status every 100 ms until it ends; the slowest status answer on the way. */
async function settle(jobId, apiKey) {
  let slowest = 0
  for (;;) {
    const t = performance.now()
    const res = await fetch(`${server.base}/api/v1/status?job_id=${jobId}`, { headers: { 'x-api-key': apiKey } })
    const body = await res.json()
    slowest = Math.max(slowest, performance.now() - t)
    if (body.state !== 'pending') return { body, slowestStatusMs: +slowest.toFixed(1) }
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Bytes of a job's results, from the data folder: downloading them here would slow this process's own health probe. */
function outputBytes(jobId) {
  const dir = join(dataDir, 'results', jobId)
  return existsSync(dir) ? readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0) : 0
}

async function run(bytes, fields, apiKey) {
  try {
    return await attempt(bytes, fields, apiKey)
  } catch (err) {
    return { error: String(err), cause: String(err.cause ?? '') }
  }
}

async function attempt(bytes, fields, apiKey) {
  const accepted = await upload(bytes, fields, apiKey)
  if (accepted.status !== 202) {
    return {
      http: accepted.status,
      code: accepted.body.error?.code,
      details: accepted.body.error?.details,
      message: accepted.body.error?.message,
      answeredMs: accepted.ms
    }
  }
  const { body, slowestStatusMs } = await settle(accepted.body.job_id, apiKey)
  const ledger = balanceOf(apiKey)
  return {
    http: 202,
    status: body.status,
    reason: body.error?.reason,
    message: body.error?.message,
    outputs: Object.keys(body.final_urls ?? {}),
    outputMb: +(outputBytes(body.job_id) / 2 ** 20).toFixed(1),
    slowestStatusMs,
    key: ledger
  }
}

const results = []
try {
  // ~360 KB: 400×300 of noise does not compress.
  const noise = Buffer.alloc(400 * 300 * 3)
  let x = 2463534242 // xorshift32: noise that no PNG filter can predict
  for (let i = 0; i < noise.length; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    noise[i] = x & 255
  }
  const small = await sharp(noise, { raw: { width: 400, height: 300, channels: 3 } })
    .png()
    .toBuffer()
  const all = 'clipping,background,compose,shadowTop,mask'
  const ask = (params) => ({ mode: 'params', params, output_format: 'psd' })
  // Warm: the model loads and the first job runs, outside the figures.
  for (let i = 0; i < 5; i++) await (await fetch(`${server.base}/api/v1/health`)).arrayBuffer()
  results.push(
    await watched(server, 'warm-up: the same upload at its own size, png', () => run(small, { mode: 'clipping' }, key), '/api/v1/health')
  )
  results.push(
    await watched(
      server,
      `size=10000x10000;variations=${all}, psd (unlimited key)`,
      () => run(small, ask(`size=10000x10000;variations=${all}`), key),
      '/api/v1/health'
    )
  )
  results.push(
    await watched(
      server,
      `size=5000x5000;variations=${all}, psd (unlimited key)`,
      () => run(small, ask(`size=5000x5000;variations=${all}`), key),
      '/api/v1/health'
    )
  )
  const oneCredit = limitedKey(1)
  results.push(
    await watched(
      server,
      'size=10000x10000;variations=clipping,mask, psd (key with 1 credit)',
      () => run(small, ask('size=10000x10000;variations=clipping,mask'), oneCredit),
      '/api/v1/health'
    )
  )
  if (!skipLarge) {
    const threeCredits = limitedKey(3)
    results.push(
      await watched(
        server,
        'size=10000x10000;variations=clipping,mask, psd (key with 3 credits)',
        () => run(small, ask('size=10000x10000;variations=clipping,mask'), threeCredits),
        '/api/v1/health'
      )
    )
    results.push(
      await watched(
        server,
        'size=10000x10000;variations=compose,shadowTop, psd (unlimited key)',
        () => run(small, ask('size=10000x10000;variations=compose,shadowTop'), key),
        '/api/v1/health'
      )
    )
  }
  const cpu = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown'
  console.log(
    JSON.stringify(
      {
        cpu,
        cores: availableParallelism(),
        loadAverage: loadavg().map((n) => +n.toFixed(2)),
        serverAlive: child.exitCode === null,
        results
      },
      null,
      2
    )
  )
} finally {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM')
    await new Promise((r) => child.once('exit', r))
  }
  rmSync(dataDir, { recursive: true, force: true })
}
