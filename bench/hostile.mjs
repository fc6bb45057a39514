#!/usr/bin/env node
/**
 * Hostile-input benchmark (`npm run bench:hostile [-- --only bodies,inputs]`): starts
 * `clipdesk serve` on a temp data folder (loopback only) and runs each attack module of
 * `bench/hostile/` against it while a second client polls the server (`/api/v1/health`, or the
 * path an attack names) every 20 ms. Prints JSON: each attack's answers, the probe's p50/p99 and
 * slowest answer during it, the server's peak RSS (and its sandboxes'), and whether the server
 * lived. Bounded in count and time, on 127.0.0.1 only; measures, never asserts.
 *
 * An attack module is a file `bench/hostile/<name>.mjs` whose default export (or first exported
 * function) is `async (ctx) => results[]`, with `ctx`:
 * - `server`: `{ child, base, port, key }` of the running serve (`key` an owner key);
 * - `watched(name, work, probe = '/api/v1/health')`: runs `work()` while probing and sampling
 *   memory, and gives its result row (bench/serve.mjs);
 * - `ensureServer()`: starts serve again on the same data folder if an attack ended it;
 * - `key(args)`: `clipdesk keys create ...args` on the data folder, the new key;
 * - `dataDir`.
 * Modules run in this order: `inputs`, `bodies`, then the others by name. A module may start a
 * server of its own instead (`flood`: one under a low file limit).
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { cli, requireBuilt, root, startServer, watched } from './serve.mjs'

requireBuilt('bench:hostile')

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1].split(',') : null
const dir = join(root, 'bench', 'hostile')
const FIRST = ['inputs', 'bodies']
const names = readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && f !== 'raw.mjs')
  .map((f) => f.slice(0, -4))
  .sort((a, b) => (FIRST.includes(a) ? FIRST.indexOf(a) : 99) - (FIRST.includes(b) ? FIRST.indexOf(b) : 99) || a.localeCompare(b))
  .filter((n) => !only || only.includes(n))

const dataDir = mkdtempSync(join(tmpdir(), 'clipdesk-bench-hostile-'))
const first = await startServer(dataDir, [])
const server = { child: first.child, port: first.port, key: first.key, base: `http://127.0.0.1:${first.port}` }

/** serve again on the same folder (it prints no key then: the first one, an owner key, still holds). */
async function ensureServer() {
  if (server.child.exitCode === null && server.child.signalCode === null) return
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] })
  server.port = await new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (c) => {
      out += c
      const port = /Listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]
      if (port) resolve(Number(port))
    })
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)))
  })
  server.child = child
  server.base = `http://127.0.0.1:${server.port}`
  server.restarts = (server.restarts ?? 0) + 1
}

const ctx = {
  server,
  dataDir,
  ensureServer,
  watched: (name, work, probe = '/api/v1/health') => watched(server, name, work, probe),
  key: (args) => {
    const r = spawnSync(process.execPath, [cli, 'keys', 'create', ...args, '--data-dir', dataDir], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(r.stderr)
    return r.stdout.trim().split('\n').pop()
  }
}

const results = {}
try {
  // Warm: the first answer of a fresh process compiles the document's code paths.
  for (let i = 0; i < 5; i++) await (await fetch(`${server.base}/api/v1/openapi.json`)).arrayBuffer()
  for (const name of names) {
    const mod = await import(pathToFileURL(join(dir, `${name}.mjs`)).href)
    const run = typeof mod.default === 'function' ? mod.default : Object.values(mod).find((v) => typeof v === 'function')
    if (!run) continue
    await ensureServer()
    results[name] = await run(ctx)
  }
  console.log(
    JSON.stringify(
      { serverAlive: server.child.exitCode === null && server.child.signalCode === null, serverRestarts: server.restarts ?? 0, results },
      null,
      2
    )
  )
} finally {
  if (server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill('SIGTERM')
    await new Promise((r) => server.child.once('exit', r))
  }
  rmSync(dataDir, { recursive: true, force: true })
}
