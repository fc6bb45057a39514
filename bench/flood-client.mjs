#!/usr/bin/env node
/**
 * An idle-connection flood, run as a process of its own (`test/http-flood.test.ts`,
 * `bench/hostile/flood.mjs`): so that its file limit is its own, raised to what it needs
 * (`floodClient` below starts it through `sh` with `ulimit -Sn`), while the server it floods
 * runs with a low one.
 *
 * `node bench/flood-client.mjs <port> <count> <holdMs> [reopenMs]` opens `count` connections to
 * 127.0.0.1:<port>, 50 at a time, and sends nothing on them; holds what the server leaves open
 * for `holdMs`, then closes them. With `reopenMs`, a connection the server closed is opened again
 * that long after (an attacker who keeps the pressure on). Prints one JSON line when all are
 * opened (`{"phase":"held",...}`) and one at the end (`{"phase":"done",...}`): connections
 * opened, closed by the server, still open, the most open at once, and connect errors by code.
 */
import { spawn } from 'node:child_process'
import { connect } from 'node:net'
import { fileURLToPath } from 'node:url'

/**
 * Starts the flood as a child: `sh -c 'ulimit -Sn <count + 256>; exec node …'` (where the hard
 * limit allows; else it runs with the limit it has and reports the EMFILEs). Resolves with
 * `{ child, held: Promise<report>, done: Promise<report> }`.
 */
export function floodClient(port, count, holdMs, reopenMs = 0) {
  const script = fileURLToPath(import.meta.url)
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      `ulimit -Sn ${count + 256} 2>/dev/null; exec "$0" "$@"`,
      process.execPath,
      script,
      String(port),
      String(count),
      String(holdMs),
      String(reopenMs)
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] }
  )
  let out = ''
  const lines = []
  /** Checks of the phases waited for, each true once settled. */
  let pending = []
  const settle = () => {
    pending = pending.filter((check) => !check())
  }
  child.stdout.on('data', (c) => {
    out += c
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      lines.push(JSON.parse(out.slice(0, nl)))
      out = out.slice(nl + 1)
    }
    settle()
  })
  let closed = false
  child.once('close', () => {
    closed = true
    settle()
  })
  const phase = (name) =>
    new Promise((resolve, reject) => {
      pending.push(() => {
        const line = lines.find((l) => l.phase === name)
        if (line) resolve(line)
        else if (closed) reject(new Error(`the flood client ended before "${name}"`))
        else return false
        return true
      })
    })
  const held = phase('held')
  const done = phase('done')
  // Looked at by the caller when it waits for them; not an unhandled rejection if it never does.
  held.catch(() => undefined)
  done.catch(() => undefined)
  return { child, held, done }
}

async function flood(port, count, holdMs, reopenMs) {
  const sockets = new Set()
  const errors = {}
  let opened = 0
  let closedByServer = 0
  let mostOpen = 0
  let ending = false
  const openOne = () =>
    new Promise((resolve) => {
      const socket = connect({ port, host: '127.0.0.1' })
      socket.once('connect', () => {
        opened++
        sockets.add(socket)
        mostOpen = Math.max(mostOpen, sockets.size)
        resolve()
      })
      socket.on('error', (err) => {
        errors[err.code ?? err.message] = (errors[err.code ?? err.message] ?? 0) + 1
        resolve()
      })
      socket.once('close', () => {
        if (!sockets.delete(socket) || ending) return
        closedByServer++
        if (reopenMs > 0) setTimeout(() => !ending && openOne(), reopenMs)
      })
      // Whatever the server sends (a 408 at its header deadline) is read and dropped.
      socket.resume()
    })
  for (let at = 0; at < count; at += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - at) }, openOne))
  }
  const report = (phase) => ({ phase, attempted: count, opened, closedByServer, open: sockets.size, mostOpen, errors })
  console.log(JSON.stringify(report('held')))
  await new Promise((r) => setTimeout(r, holdMs))
  const final = report('done')
  ending = true
  for (const s of sockets) s.destroy()
  console.log(JSON.stringify(final))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [port, count, holdMs, reopenMs] = process.argv.slice(2).map(Number)
  await flood(port, count, holdMs, reopenMs || 0)
  // Connections being opened again when it ended are dropped with the process.
  process.exit(0)
}
