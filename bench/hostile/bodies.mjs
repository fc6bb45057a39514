/**
 * Request bodies that cost the server, not the sender: oversized chunked bodies on each route
 * (these ended the process), a multipart body past the whole-body cap, slow senders holding the
 * upload budget (one key; a key with no credits), and, with redis-server installed, the studio
 * claim and the workers' listener's result budget. Each attack is bounded (bytes, connections,
 * 25 s); the server is started again when one ended it, so that each is measured on its own.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { cliSync, freePort, startRedis, waitLine, cli } from '../studio-procs.mjs'
import { watched } from '../serve.mjs'
import { postHead, rawRequest } from './raw.mjs'

const MB = 1024 * 1024
/** Slow connections are given up by the benchmark after this long if the server has not cut them. */
const HOLD_MS = 25_000
const BOUNDARY = 'b0undary'
const FILE_PART = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

async function photoForm() {
  const form = new FormData()
  const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#c84' } })
    .png()
    .toBuffer()
  form.append('file', new Blob([png], { type: 'image/png' }), 'a.png')
  return form
}

export default async function bodies(ctx) {
  const client = ctx.key(['--credits', '100'])
  const other = ctx.key(['--credits', '100'])
  const broke = ctx.key(['--credits', '0'])
  const results = []
  const attack = async (name, work) => {
    await ctx.ensureServer()
    results.push(await ctx.watched(name, () => work(ctx.server)))
  }
  const chunkedJson = (s, path, key, total) =>
    rawRequest(s.port, postHead(s.port, path, key, 'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n'), {
      prefix: '{"file_url":"',
      total,
      chunked: true
    })
  const three = (make) => Promise.all([make(), make(), make()])

  await attack('chunked JSON upload of 2 MB (limit 1 MiB), a key with credits, ×3', (s) =>
    three(() => chunkedJson(s, '/api/v1/upload', client, 2 * MB))
  )
  await attack('chunked JSON upload of 2 MB, a key with 0 credits, ×3', (s) => three(() => chunkedJson(s, '/api/v1/upload', broke, 2 * MB)))
  await attack('app bridge: 9 MB chunked (limit 8 MiB), owner key, ×3', (s) =>
    three(() => chunkedJson(s, '/api/app/batchesList', s.key, 9 * MB))
  )
  await attack('chunked multipart upload: 60 MB of preamble (whole-body cap 51 MiB)', (s) =>
    rawRequest(
      s.port,
      postHead(
        s.port,
        '/api/v1/upload',
        client,
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nTransfer-Encoding: chunked\r\n`
      ),
      { prefix: 'preamble\r\n', total: 60 * MB, chunked: true }
    )
  )

  // Four connections declaring a little over 50 MB each (together the whole default upload
  // budget, 4 × 50 MiB + 1 MiB) and sending a byte a second, then another key's upload.
  const declared = 50 * MB + 256 * 1024
  const slowFour = async (s, key) => {
    const slow = Array.from({ length: 4 }, () =>
      rawRequest(
        s.port,
        postHead(
          s.port,
          '/api/v1/upload',
          key,
          `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${declared}\r\n`
        ),
        { prefix: FILE_PART, total: declared, chunk: 1, everyMs: 1000, stopAfterMs: HOLD_MS }
      )
    )
    await sleep(1500) // their heads are read and their reservations (if any) taken
    const t = performance.now()
    const res = await fetch(`${s.base}/api/v1/upload`, { method: 'POST', headers: { 'X-API-Key': other }, body: await photoForm() })
    const body = await res.json()
    const otherUpload = { status: res.status, code: body.error?.code ?? null, seconds: +((performance.now() - t) / 1000).toFixed(2) }
    return { otherKeysUpload: otherUpload, slowSenders: await Promise.all(slow) }
  }
  await attack('4 slow senders of one key (50.25 MiB declared each, 1 byte/s), then another key uploads', (s) => slowFour(s, client))
  await attack('4 slow senders of a 0-credit key (50.25 MiB declared each, 1 byte/s), then another key uploads', (s) => slowFour(s, broke))

  const redisServer = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim()
  if (redisServer) results.push(...(await studio(ctx, redisServer)))
  else results.push({ input: 'studio attacks', skipped: 'redis-server is not installed' })
  return results
}

/** A coordinator with the workers' listener: oversized claims, and one worker holding the result budget. */
async function studio(_ctx, redisServer) {
  const data = mkdtempSync(join(tmpdir(), 'clipdesk-bench-hostile-studio-'))
  const redisPort = await freePort()
  const redis = await startRedis(redisServer, redisPort)
  const clientKey = cliSync(['keys', 'create', '--credits', '100', '--data-dir', data])
  const workerA = cliSync(['keys', 'create', '--worker', '--data-dir', data])
  const workerB = cliSync(['keys', 'create', '--worker', '--data-dir', data])
  const start = () => {
    const child = spawn(
      process.execPath,
      [
        cli,
        'serve',
        '--port',
        '0',
        '--queue',
        `redis://127.0.0.1:${redisPort}`,
        '--no-local-worker',
        '--worker-listen',
        '127.0.0.1:0',
        '--data-dir',
        data
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] }
    )
    return Promise.all([
      waitLine(child, /Listening on http:\/\/127\.0\.0\.1:(\d+)/),
      waitLine(child, /Workers listening on http:\/\/127\.0\.0\.1:(\d+)/)
    ]).then(([a, w]) => ({ child, port: Number(a[1]), workers: Number(w[1]) }))
  }
  let coord = await start()
  const server = () => ({ child: coord.child, base: `http://127.0.0.1:${coord.port}` })
  const headers = (key, token, json = true) => ({
    'X-API-Key': key,
    'X-Clipdesk-Studio': '3',
    'X-Clipdesk-Worker': 'bench',
    ...(json && { 'Content-Type': 'application/json' }),
    ...(token && { 'X-Clipdesk-Claim': token })
  })
  const alive = async () => {
    if (coord.child.exitCode === null && coord.child.signalCode === null) return
    coord = await start()
  }
  const input = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c84' } })
    .png()
    .toBuffer()
  const job = async () => {
    for (;;) {
      const form = new FormData()
      form.append('file', new Blob([input], { type: 'image/png' }), 'a.png')
      const res = await fetch(`http://127.0.0.1:${coord.port}/api/v1/upload`, {
        method: 'POST',
        headers: { 'X-API-Key': clientKey },
        body: form
      })
      const body = await res.json()
      if (res.status === 202) return body.job_id
      await sleep(200) // the coordinator takes uploads once Redis answered
    }
  }
  const claim = async (key, jobId) =>
    (
      await (
        await fetch(`http://127.0.0.1:${coord.workers}/api/v1/studio/claim`, {
          method: 'POST',
          headers: headers(key),
          body: JSON.stringify({ job_id: jobId })
        })
      ).json()
    ).job
  const results = []
  try {
    await job()
    results.push(
      await watched(
        server(),
        "studio claim: 2 MB chunked (limit 16 KiB) on the workers' listener, worker key, ×3",
        () =>
          Promise.all(
            Array.from({ length: 3 }, () =>
              rawRequest(
                coord.workers,
                `POST /api/v1/studio/claim HTTP/1.1\r\nHost: 127.0.0.1:${coord.workers}\r\nX-API-Key: ${workerA}\r\nX-Clipdesk-Studio: 3\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n`,
                {
                  prefix: '{"job_id":"',
                  total: 2 * MB,
                  chunked: true
                }
              )
            )
          ),
        '/api/v1/health'
      )
    )
    await alive()
    const maxResult = 8 * 50 * MB
    const claims = [await claim(workerA, await job()), await claim(workerA, await job()), await claim(workerB, await job())]
    results.push(
      await watched(
        server(),
        "workers' listener: one worker key holds 2 slow results (400 MB declared each, 1 byte/s), then another worker's result",
        async () => {
          const held = claims.slice(0, 2).map((c) =>
            rawRequest(
              coord.workers,
              `POST /api/v1/studio/result/${c.job_id} HTTP/1.1\r\nHost: 127.0.0.1:${coord.workers}\r\nX-API-Key: ${workerA}\r\nX-Clipdesk-Studio: 3\r\nX-Clipdesk-Claim: ${c.token}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${maxResult}\r\n`,
              {
                prefix: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="clipping.png"; filename="r"\r\n\r\n`,
                total: maxResult,
                chunk: 1,
                everyMs: 1000,
                stopAfterMs: HOLD_MS
              }
            )
          )
          await sleep(1500)
          const c = claims[2]
          const form = new FormData()
          form.append(
            'meta',
            JSON.stringify({ warnings: {}, ignored: c.params.variations.filter((v) => v !== 'clipping'), device: 'cpu', uncertainty: 0.1 })
          )
          form.append(`clipping.${c.format}`, new Blob([input]), `clipping.${c.format}`)
          const t = performance.now()
          const res = await fetch(`http://127.0.0.1:${coord.workers}/api/v1/studio/result/${c.job_id}`, {
            method: 'POST',
            headers: headers(workerB, c.token, false),
            body: form
          })
          const body = await res.json()
          return {
            otherWorkersResult: {
              status: res.status,
              code: body.error?.code ?? null,
              stored: body.stored ?? null,
              seconds: +((performance.now() - t) / 1000).toFixed(2)
            },
            slowResults: await Promise.all(held)
          }
        },
        '/api/v1/health'
      )
    )
  } finally {
    coord.child.kill('SIGTERM')
    await new Promise((r) => (coord.child.exitCode !== null ? r() : coord.child.once('exit', r)))
    redis.kill('SIGKILL')
    rmSync(data, { recursive: true, force: true })
  }
  return results
}
