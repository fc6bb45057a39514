/**
 * A real deadline for a request's headers, per connection.
 *
 * Node enforces `server.headersTimeout` only when it sweeps its connections (every
 * `connectionsCheckingInterval`, 30 s by default), so a client sending one header line every
 * few seconds holds its connection (and a file descriptor) for up to the limit plus that
 * interval, and thousands of them hold that many. Here each connection gets a timer of its own:
 * armed when it opens and again whenever it falls idle between requests on a kept-alive
 * connection, cleared as soon as a request's headers are complete (Node's 'request' event). When
 * it fires, the client gets 408 and the connection is closed.
 *
 * A connection only counts as idle when none of its requests is still being answered, so a
 * long upload, a download or an event stream is never cut by it; those have the request and
 * idle timeouts (docs/api.md §15).
 */
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { answerClientError } from './respond'

interface ConnectionState {
  timer: NodeJS.Timeout | null
  /** Requests of this connection whose headers arrived and whose answer is not finished yet. */
  active: number
}

export function enforceHeaderDeadline(server: Server, limitMs: number): void {
  const states = new WeakMap<Socket, ConnectionState>()

  const arm = (socket: Socket, state: ConnectionState): void => {
    if (state.timer) clearTimeout(state.timer)
    state.timer = setTimeout(() => {
      state.timer = null
      if (state.active > 0 || socket.destroyed) return
      const timeout = Object.assign(new Error('the request headers did not arrive in time'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' })
      answerClientError(timeout, socket)
      // The client may keep sending: once the answer is out, nothing more is read.
      if (socket.writableFinished) socket.destroy()
      else socket.once('finish', () => socket.destroy())
    }, limitMs)
    state.timer.unref()
  }

  server.on('connection', (socket: Socket) => {
    const state: ConnectionState = { timer: null, active: 0 }
    states.set(socket, state)
    arm(socket, state)
    socket.once('close', () => {
      if (state.timer) clearTimeout(state.timer)
      state.timer = null
    })
  })

  server.on('request', (req, res) => {
    const socket = req.socket
    const state = states.get(socket)
    if (!state) return
    state.active++
    if (state.timer) clearTimeout(state.timer)
    state.timer = null
    res.once('close', () => {
      state.active--
      // Kept alive: the next request's headers have the same time to arrive.
      if (state.active === 0 && !socket.destroyed) arm(socket, state)
    })
  })
}
