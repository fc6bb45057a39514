/**
 * The app bridge of `clipdesk serve` made in the test's own process: the app API over a real
 * engine and batch service, served on a real socket on 127.0.0.1 (the tests that need the server's
 * pieces at hand rather than a `clipdesk serve` child).
 */
import { join } from 'node:path'
import { createAppApi, type AppHost } from '../../src/main/app-api/app-api'
import { appEvents, batchAppFiles } from '../../src/main/app-api/files'
import type { BatchService } from '../../src/main/batches/service'
import type { Engine } from '../../src/main/engine/engine'
import { signedPreviewAddress } from '../../src/main/http/app-bridge'
import { startHttpServer, type HttpListener, type HttpServerOptions } from '../../src/main/http/server'
import type { IpcHandlers } from '../../src/shared/ipc'
import { FileSettings } from '../../src/main/settings'

export interface AppServerOptions {
  /** Host fields beside the server's defaults (e.g. `downloads`). */
  host?: Partial<AppHost>
  /** The built renderer's folder to serve; none by default. */
  rendererDir?: string
  /** More listener options (e.g. `bodyRateFloor`). */
  listener?: Omit<HttpServerOptions, 'port' | 'app'>
}

export async function startAppServer(
  root: string,
  engine: Engine,
  batches: BatchService,
  opts: AppServerOptions = {}
): Promise<{ http: HttpListener; handlers: IpcHandlers }> {
  const settings = new FileSettings(join(root, 'data', 'settings.json'))
  const address = signedPreviewAddress(engine)
  const handlers = createAppApi({
    engine,
    batches,
    address,
    host: {
      host: 'server',
      version: 'test',
      settings,
      effective: { dataDir: join(root, 'data'), outputDir: join(root, 'out') },
      startedWith: settings.get(),
      listener: () => ({ running: true, url: null, error: null, managed: false }),
      ...opts.host
    }
  })
  const http = await startHttpServer(engine, {
    ...opts.listener,
    port: 0,
    app: { handlers, engine, files: batchAppFiles(batches), events: appEvents({ engine, batches, address }), rendererDir: opts.rendererDir }
  })
  return { http, handlers }
}
