/**
 * The studio workers' listener (`clipdesk serve --queue … --worker-listen host:port`): a
 * second, opt-in listener that answers ONLY what workers call — hello, claim, and with a
 * claim's token the input download, renewal, progress, result upload and failure report — each
 * with a worker key. The public API listener keeps binding 127.0.0.1 only; this one may bind
 * another address so that workers on other machines reach the coordinator, and it exposes
 * nothing a client key could use: every other path, `/api/v1/upload` and `/api/v1/status`
 * included, is 404 `not_found`.
 *
 * No Host check here (unlike the API listener): that check guards browsers against DNS
 * rebinding, and every call here needs a worker key in a header, which a page of another
 * origin cannot send without a preflight we never allow; workers reach it under any name.
 */
import { isIP } from 'node:net'
import type { WorkerListenerPort } from '../engine/ports'
// The studio protocol over HTTP is the studio feature's own transport: it speaks studio's types, unlike the app's transports.
import type { StudioCoordinator } from '../studio/coordinator'
import { apiServer, keyCheck, listen, type HttpListener } from './listen'
import type { RateFloor } from './read-body'
import { nothingAt, serveRoutes } from './route-table'
import { studioRoutes, workerKey } from './studio-routes'

export interface WorkerAddress {
  host: string
  port: number
}

/**
 * Parses `host:port` (`0.0.0.0:7879`, `192.168.1.5:7879`, `[::]:7879`); a bare port binds
 * 127.0.0.1. Throws with a readable message.
 */
export function parseWorkerListen(value: string): WorkerAddress {
  const text = value.trim()
  let host = '127.0.0.1'
  let portText = text
  const v6 = /^\[([0-9a-fA-F:.]+)\]:(\d{1,5})$/.exec(text)
  if (v6) {
    host = v6[1]!
    portText = v6[2]!
  } else if (text.includes(':')) {
    const at = text.lastIndexOf(':')
    host = text.slice(0, at)
    portText = text.slice(at + 1)
  }
  const port = Number(portText)
  if (!/^\d{1,5}$/.test(portText) || port > 65535)
    throw new Error(`expected --worker-listen to be host:port with a port 0–65535, got "${value}"`)
  if (isIP(host) === 0 && !/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(host)) {
    throw new Error(`expected --worker-listen to be host:port with an IP address or host name, got "${value}"`)
  }
  return { host, port }
}

export interface WorkerListenerOptions {
  /** The slowest a request body may arrive (408 `request_timeout` under it). @default 8 KiB/s over 10 s */
  bodyRateFloor?: RateFloor
}

export async function startWorkerListener(
  engine: WorkerListenerPort,
  coordinator: StudioCoordinator,
  address: WorkerAddress,
  opts: WorkerListenerOptions = {}
): Promise<HttpListener> {
  const authenticate = keyCheck(engine)
  const handle = serveRoutes({
    routes: [
      ...studioRoutes({ engine, coordinator, workerOnly: true, floor: opts.bodyRateFloor }),
      nothingAt('/*', 'worker', 'none', 'ours', "No endpoint here on the workers' listener; clients use the API listener.")
    ],
    floor: opts.bodyRateFloor,
    base: () => 'http://worker-listener',
    keys: {
      none: () => null,
      worker: workerKey(authenticate)
    }
  })
  return listen(apiServer(handle), address.port, address.host)
}
