/**
 * A hand-written request on a real socket for the hostile benchmark: a head, then a body sent
 * as fast as the socket takes it, or slowly, until an answer comes or the server closes.
 * Resolves with the first answer's status and error code, the bytes sent and the seconds it took.
 */
import { connect } from 'node:net'

export function rawRequest(port, head, { prefix = '', total = 0, chunked = false, chunk = 64 * 1024, everyMs = 0, stopAfterMs = 0 } = {}) {
  const started = performance.now()
  const socket = connect({ port, host: '127.0.0.1' })
  let text = ''
  let sent = 0
  let answered = false
  const reply = new Promise((resolve) => {
    const done = (how) => {
      if (answered) return
      answered = true
      const status = text.startsWith('HTTP/1.1 ') ? Number(text.slice(9, 12)) : null
      const at = text.indexOf('"code":"')
      resolve({
        status,
        code: at < 0 ? null : text.slice(at + 8, text.indexOf('"', at + 8)),
        sentBytes: sent,
        seconds: +((performance.now() - started) / 1000).toFixed(2),
        ...(how && { ended: how })
      })
      socket.destroy()
    }
    socket.on('data', (c) => {
      text += c.toString('latin1')
      const end = text.indexOf('\r\n\r\n')
      const length = end < 0 ? null : /content-length: (\d+)/i.exec(text.slice(0, end))
      if (length && text.length - end - 4 >= Number(length[1])) done()
    })
    socket.on('error', () => undefined)
    socket.on('close', () => done(text ? undefined : 'closed without an answer'))
    if (stopAfterMs) setTimeout(() => done(`still open after ${stopAfterMs / 1000} s`), stopAfterMs).unref()
  })
  socket.on('connect', async () => {
    socket.write(`${head}\r\n`)
    const first = Buffer.from(prefix)
    const filler = Buffer.alloc(chunk, 0x41)
    const frame = (b) => (chunked ? Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]) : b)
    while (!answered && !socket.destroyed && sent < total) {
      const next = sent === 0 && first.length ? first : filler.subarray(0, Math.min(chunk, total - sent))
      sent += next.length
      const flushed = socket.write(frame(next))
      if (everyMs) await new Promise((r) => setTimeout(r, everyMs))
      else if (!flushed) await drained(socket)
    }
    if (!answered && !socket.destroyed && chunked) socket.write('0\r\n\r\n')
  })
  return reply
}

/** The head of a POST with a key (and more header lines), for `rawRequest`. */
export function postHead(port, path, key, extra = '') {
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-API-Key: ${key}\r\n${extra}`
}

/** Resolves once `socket` can take more, or is closed. */
function drained(socket) {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done)
      socket.off('close', done)
      resolve()
    }
    socket.once('drain', done)
    socket.once('close', done)
  })
}
