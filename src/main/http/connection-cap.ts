/**
 * A cap on the connections the engine's listeners hold, well under the process's file limit.
 *
 * Why: every connection holds a file descriptor, and so does everything else the engine needs to
 * work: a sandbox process's channel, the database, an upload's or a result's file. Without a cap
 * a flood of idle connections (no byte, no key) takes the process to its soft RLIMIT_NOFILE; past
 * it, nothing that needs a descriptor can start (a sandbox fails with EMFILE). With the cap the
 * listener closes a connection at once, before the descriptors run out, and the engine's own
 * work keeps the rest.
 *
 * Two limits, over all listeners of the process together:
 * - `max`, a quarter of the soft file limit (at most 4,096): a connection past it is closed as
 *   soon as it is accepted. A quarter, because an open connection may hold a second descriptor
 *   (the upload being written, the result being sent), and the other half is the engine's.
 * - `maxIdle`, a quarter of that: connections that have not yet sent a whole request head (Node's
 *   parser reads the socket in C++, so a first byte is not seen from here; one sending its head
 *   a byte at a time is no better than one sending none). When a new connection would pass it,
 *   the oldest such connection is closed: a client that connects and sends its request at once
 *   (every real one) is never the oldest, so a flood of idle connections only evicts itself. The
 *   header deadline (header-deadline.ts) closes those that stay anyway.
 *
 * The file limit is read without a native addon: /proc/self/limits on Linux, `ulimit -n` in a
 * shell elsewhere on Unix; on Windows (no such limit on sockets) or where neither answers the
 * caps are the most. Node has raised the soft limit to the hard one as it started, so this is
 * in effect the hard limit (`ulimit -n 1024` sets both). `GET /api/v1/health` shows the counts (`connections`). docs/robustness.md, "Connection floods".
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { Socket } from 'node:net'

/** `connections` of `GET /api/v1/health`. */
export interface ConnectionCounts {
  /** Connections open now, over all listeners. */
  open: number
  /** Of those, the ones that have not sent a whole request head yet. */
  idle: number
  max: number
  max_idle: number
  /** Connections closed at once because `max` were open. */
  refused: number
  /** Idle connections closed to make room for a newer one. */
  evicted: number
  /** The process's soft file limit the caps were derived from (null: unlimited or not known). */
  file_limit: number | null
}

export class ConnectionBudget {
  private open = 0
  /** Connections with no whole request head yet, oldest first (a Set keeps insertion order). */
  private readonly idle = new Set<Socket>()
  private refused = 0
  private evicted = 0

  constructor(
    readonly max: number,
    readonly maxIdle: number,
    readonly fileLimit: number | null = null
  ) {}

  /** Counts `server`'s connections against this budget. */
  watch(server: Server): void {
    server.on('connection', (socket: Socket) => this.admit(socket))
    server.on('request', (req: { socket: Socket }) => {
      this.idle.delete(req.socket)
    })
  }

  counts(): ConnectionCounts {
    return {
      open: this.open,
      idle: this.idle.size,
      max: this.max,
      max_idle: this.maxIdle,
      refused: this.refused,
      evicted: this.evicted,
      file_limit: this.fileLimit
    }
  }

  private admit(socket: Socket): void {
    if (this.open >= this.max) {
      this.refused++
      socket.destroy()
      return
    }
    this.open++
    socket.once('close', () => {
      this.open--
      this.idle.delete(socket)
    })
    if (this.idle.size >= this.maxIdle) {
      const oldest = this.idle.values().next().value as Socket
      this.idle.delete(oldest)
      this.evicted++
      oldest.destroy()
    }
    this.idle.add(socket)
  }
}

/** The most connections whatever the file limit: plenty for a local server, a bound on memory. */
const MOST_CONNECTIONS = 4096

/** The caps for a soft file limit (null: unlimited or unknown). */
export function budgetFor(fileLimit: number | null): ConnectionBudget {
  const limit = fileLimit ?? 4 * MOST_CONNECTIONS
  const max = Math.max(16, Math.min(MOST_CONNECTIONS, Math.floor(limit / 4)))
  return new ConnectionBudget(max, Math.max(8, Math.floor(max / 4)), fileLimit)
}

let shared: ConnectionBudget | null = null

/** The budget every listener of this process shares, derived from its soft file limit once. */
export function processConnectionBudget(): ConnectionBudget {
  shared ??= budgetFor(softFileLimit())
  return shared
}

/** The soft RLIMIT_NOFILE of this process; null when unlimited or not known (Windows). */
export function softFileLimit(): number | null {
  if (process.platform === 'win32') return null
  if (process.platform === 'linux') {
    try {
      // "Max open files            1024                 1048576              files"
      const line = readFileSync('/proc/self/limits', 'latin1')
        .split('\n')
        .find((l) => l.startsWith('Max open files'))
      const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0]
      if (soft) return parseLimit(soft)
    } catch {
      // No /proc (a sandboxed build): ask a shell.
    }
  }
  try {
    return parseLimit(execFileSync('/bin/sh', ['-c', 'ulimit -n'], { encoding: 'latin1', timeout: 2000 }).trim())
  } catch {
    return null
  }
}

function parseLimit(text: string): number | null {
  const n = Number(text)
  return Number.isSafeInteger(n) && n > 0 ? n : null
}
