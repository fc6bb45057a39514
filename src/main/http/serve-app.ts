/**
 * What `clipdesk serve` adds to the listener for the renderer in a browser: the batch
 * service, settings in `<data folder>/settings.json`, and the app bridge over them.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { AppSettings, ListenerStatus } from '../../shared/app'
import { BatchService } from '../batches/service'
import type { Engine } from '../engine/engine'
import type { EngineOptions } from '../engine/options'
import { createAppApi } from '../ipc/app-api'
import { FileSettings } from '../settings'
import { APP_VERSION } from '../version'
import { engineProcessor } from '../watch/processor'
import { WatchService } from '../watch/service'
import type { StudioCoordinator } from '../studio/coordinator'
import { signedPreviewAddress, type AppBridgeOptions } from './app-bridge'

/** The settings file of a data folder under `clipdesk serve`. */
export function serverSettings(dataDir: string): FileSettings {
  return new FileSettings(join(dataDir, 'settings.json'))
}

/** Engine options that come from the settings (SPEC §4: all limits are settings). */
export function engineOptionsFrom(settings: AppSettings): Pick<EngineOptions, 'concurrency' | 'retentionMs'> {
  return { concurrency: settings.concurrency ?? undefined, retentionMs: settings.retentionHours * 60 * 60 * 1000 }
}

/** The built renderer next to the CLI bundle (out/main/cli.js → out/renderer). */
export function defaultRendererDir(): string | undefined {
  const dir = join(import.meta.dirname, '../renderer')
  return existsSync(join(dir, 'index.html')) ? dir : undefined
}

export interface ServeApp {
  app: AppBridgeOptions
  batches: BatchService
  /** Watched folders; `clipdesk serve` starts it (`watch.start()`), `stop()` stops it. */
  watch: WatchService
  /** Tells the app where it is being served, once the listener is up. */
  listening(url: string): void
  stop(): Promise<void>
}

export function createServeApp(engine: Engine, settings: FileSettings, studio: StudioCoordinator | null = null, rendererDir = defaultRendererDir()): ServeApp {
  const batches = new BatchService(engine)
  const watch = new WatchService({ db: engine.db, processor: engineProcessor(engine) })
  const startedWith = settings.get()
  let url: string | null = null
  const listener = (): ListenerStatus => ({ running: url !== null, url, error: null, managed: false })
  const address = signedPreviewAddress(engine)
  const handlers = createAppApi({
    engine,
    batches,
    address,
    watch,
    studio,
    host: {
      host: 'server',
      version: APP_VERSION,
      settings,
      get effective() {
        return { dataDir: engine.options.dataDir, outputDir: settings.get().outputDir || join(engine.options.dataDir, 'output') }
      },
      startedWith,
      listener
    }
  })
  batches.start()
  return {
    app: { handlers, engine, batches, address, rendererDir, watch, studio },
    batches,
    watch,
    listening(u) {
      url = u
    },
    stop: async () => {
      await watch.stop()
      await batches.stop()
    }
  }
}
