import { connect, type Socket } from 'node:net'

/** A response body as JSON, typed loosely: tests assert its shape themselves. */
export async function json(res: Response): Promise<any> {
  return res.json()
}

/** What came back on a raw connection: the first answer's status and error code (null: none came). */
export interface RawReply {
  status: number | null
  code: string | null
  headers: string
  /** Body bytes the client had written when the answer came (or the connection closed). */
  sent: number
}

export interface RawBody {
  /** Bytes sent first (a JSON opening, a multipart part's head), counted in `total`. */
  prefix?: string | Buffer
  /** Body bytes to send at most (filler after the prefix). */
  total: number
  /** Sent with Transfer-Encoding: chunked (the head must say so), else raw. */
  chunked?: boolean
  /** Bytes per write. @default 64 KiB */
  chunk?: number
  /** A pause between writes: a slow sender. @default none */
  everyMs?: number
  /** After this many bytes the client resets the connection. */
  resetAfter?: number
}

/**
 * A hand-written request on a real socket: `head` (request line and headers, without the blank
 * line), then a body as `body` says, stopping once an answer has come or the server closed.
 */
export function rawRequest(port: number, head: string, body: RawBody): { reply: Promise<RawReply>; socket: Socket } {
  const socket = connect({ port, host: '127.0.0.1' })
  let text = ''
  let sent = 0
  let answered = false
  const reply = new Promise<RawReply>((resolve) => {
    const done = (): void => {
      answered = true
      const status = text.startsWith('HTTP/1.1 ') ? Number(text.slice(9, 12)) : null
      const at = text.indexOf('"code":"')
      resolve({
        status,
        code: at < 0 ? null : text.slice(at + 8, text.indexOf('"', at + 8)),
        headers: text.slice(0, Math.max(0, text.indexOf('\r\n\r\n'))),
        sent
      })
    }
    socket.on('data', (c: Buffer) => {
      text += c.toString('latin1')
      const end = text.indexOf('\r\n\r\n')
      if (end < 0 || answered) return
      const length = /content-length: (\d+)/i.exec(text.slice(0, end))
      if (length && text.length - end - 4 >= Number(length[1])) done()
    })
    socket.on('error', () => undefined)
    socket.on('close', () => !answered && done())
  })
  socket.on('connect', async () => {
    socket.write(`${head}\r\n`)
    const size = body.chunk ?? 64 * 1024
    const prefix = typeof body.prefix === 'string' ? Buffer.from(body.prefix) : (body.prefix ?? Buffer.alloc(0))
    const filler = Buffer.alloc(size, 0x41)
    const frame = (bytes: Buffer): Buffer =>
      body.chunked ? Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]) : bytes
    while (!answered && !socket.destroyed && sent < body.total) {
      if (body.resetAfter !== undefined && sent >= body.resetAfter) {
        socket.resetAndDestroy()
        return
      }
      const next = sent === 0 && prefix.length > 0 ? prefix : filler.subarray(0, Math.min(size, body.total - sent))
      sent += next.length
      const flushed = socket.write(frame(next))
      if (body.everyMs) await new Promise((r) => setTimeout(r, body.everyMs))
      else if (!flushed) await drained(socket)
    }
    if (!answered && !socket.destroyed && body.chunked) socket.write('0\r\n\r\n')
  })
  return { reply, socket }
}

/** Resolves once `socket` can take more, or is closed. */
function drained(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      socket.off('drain', done)
      socket.off('close', done)
      resolve()
    }
    socket.once('drain', done)
    socket.once('close', done)
  })
}
