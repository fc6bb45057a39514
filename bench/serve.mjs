/**
 * Shared by the benchmarks that drive `clipdesk serve` as a user would: the built command, a
 * server started on a free loopback port with its first API key read from its output, and a
 * watcher of its answer times and memory (its own and its sandbox processes', from /proc).
 */
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('..', import.meta.url))
export const cli = join(root, 'bin', 'clipdesk.js')

/** Exits with a message when the command is not built yet. */
export function requireBuilt(name) {
  if (!existsSync(join(root, 'out', 'main', 'cli.js'))) {
    console.error(`${name}: build first (npm run build)`)
    process.exit(1)
  }
}

/** `clipdesk serve --port 0 --data-dir <dir> ...args`, resolved once it listens and printed its key. */
export function startServer(dataDir, args = []) {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', ...args, '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit']
  })
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (c) => {
      out += c
      const port = /Listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]
      const key = /API key: (\S+)/.exec(out)?.[1]
      if (port && key) resolve({ child, port: Number(port), key })
    })
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)))
  })
}

const kb = (status, field) => {
  const at = status.indexOf(`${field}:`)
  return at < 0 ? 0 : Number.parseInt(status.slice(at + field.length + 1, status.indexOf('\n', at)).trim(), 10)
}

/** Resident memory of a process in MB (0 once it is gone). */
export function rssMb(pid) {
  try {
    return kb(readFileSync(`/proc/${pid}/status`, 'latin1'), 'VmRSS') / 1024
  } catch {
    return 0
  }
}

/** Child processes of `pid` (the sandboxes), from /proc. */
export function children(pid) {
  const out = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === pid) out.push(Number(name))
    } catch {}
  }
  return out
}

/**
 * Runs `work` while a second client asks `probe` (a path) every 20 ms and memory is sampled
 * every 50 ms; gives `work`'s outcome with the slowest answer and the peaks.
 */
export async function watched(server, name, work, probe = '/api/v1/openapi.json') {
  const { child, base } = server
  let running = true
  let slowest = 0
  let answers = 0
  let failures = 0
  let peakServer = 0
  let peakSandbox = 0
  // Listing the children scans all of /proc: every 10th sample only, their memory every time.
  let ticks = 0
  let sandboxes = children(child.pid)
  const sampler = setInterval(() => {
    if (++ticks % 10 === 0) sandboxes = children(child.pid)
    peakServer = Math.max(peakServer, rssMb(child.pid))
    peakSandbox = Math.max(
      peakSandbox,
      sandboxes.reduce((n, pid) => n + rssMb(pid), 0)
    )
  }, 50)
  const times = []
  const poller = (async () => {
    while (running) {
      const t = performance.now()
      try {
        const res = await fetch(`${base}${probe}`)
        await res.arrayBuffer()
        answers++
      } catch {
        failures++
      }
      const ms = performance.now() - t
      times.push(ms)
      slowest = Math.max(slowest, ms)
      await new Promise((r) => setTimeout(r, 20))
    }
  })()
  const started = performance.now()
  let outcome
  try {
    outcome = await work()
  } catch (err) {
    outcome = { error: String(err) }
  }
  const seconds = (performance.now() - started) / 1000
  running = false
  await poller
  clearInterval(sampler)
  const alive = child.exitCode === null && child.signalCode === null
  times.sort((a, b) => a - b)
  const at = (q) => +(times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(1)
  const answered = {
    answers,
    failures,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    slowestMs: +slowest.toFixed(1),
    over200Ms: times.filter((t) => t > 200).length
  }
  return {
    input: name,
    serverAlive: alive,
    outcome,
    seconds: +seconds.toFixed(2),
    [probe.split('/').pop()]: answered,
    peakRssMb: { server: Math.round(peakServer), sandboxes: Math.round(peakSandbox) }
  }
}
