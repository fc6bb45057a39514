/**
 * The one composition of the app's services, for both hosts: the Electron shell (`index.ts`)
 * and `clipdesk serve` (`cli/serve.ts`). It makes the engine (embedded, or studio mode's
 * coordinator on a shared queue), the batch service and the watched-folders service on the
 * engine's database, and the app API over them (its methods, files and events); each host adds
 * only its transports (IPC and the `clipdesk-result:` protocol, or the HTTP listener and its app
 * bridge), which take these and never the services themselves.
 */
import { join } from 'node:path'
import type { AppSettings } from '../shared/app'
import type { IpcHandlers } from '../shared/ipc'
import { createAppApi, type AppHost } from './app-api/app-api'
import { appEvents, batchAppFiles, type AppEvents, type AppFiles, type PreviewAddress } from './app-api/files'
import { BatchService } from './batches/service'
import { holdDataFolder } from './engine/data-folder'
import { createEngine } from './engine/create'
import type { ComposedEnginePort } from './engine/ports'
import type { EngineOptions } from './engine/options'
import { FileSettings } from './settings'
import type { StudioCoordinator } from './studio/coordinator'
import { createStudioEngine, type StudioOptions } from './studio/studio'
import { engineProcessor } from './watch/processor'
import { WatchService } from './watch/service'

/** The settings file of a data folder under `clipdesk serve` (the app keeps its own with electron-store). */
export function serverSettings(dataDir: string): FileSettings {
  return new FileSettings(join(dataDir, 'settings.json'))
}

/** Engine options that come from the settings (all limits are settings). */
export function engineOptionsFrom(settings: AppSettings): Pick<EngineOptions, 'concurrency' | 'retentionMs'> {
  return { concurrency: settings.concurrency ?? undefined, retentionMs: settings.retentionHours * 60 * 60 * 1000 }
}

export interface Services {
  engine: ComposedEnginePort
  /** Studio mode's coordinator; null for the embedded engine. */
  studio: StudioCoordinator | null
  batches: BatchService
  watch: WatchService
  /**
   * Starts the engine (taking the data folder's run lock: throws `DataDirBusy` when another
   * process has it), then the batches and the watched folders. `paused`: the engine takes no
   * work, but the folder is held all the same (a paused server still writes: keys, uploads,
   * batches), so nothing starts unless it is the folder's one owner; the folders are not
   * watched; batches still accept files.
   */
  start(opts?: { paused?: boolean }): Promise<void>
  /** The app API over these services, for one host and its preview addresses. */
  appApi(host: AppHost, address: PreviewAddress): IpcHandlers
  /** The files a transport serves: previews, written files, a batch's files. */
  files: AppFiles
  /** The app's events for a transport, items addressed with its preview addresses. */
  events(address: PreviewAddress): AppEvents
  /** Stops the services, then the engine (running jobs resume at the next start). */
  stop(): Promise<void>
}

export function composeServices(engineOptions: EngineOptions, studioOptions: StudioOptions | null = null): Services {
  const studio = studioOptions ? createStudioEngine(engineOptions, studioOptions) : null
  const engine = studio ? studio.engine : createEngine(engineOptions)
  const batches = new BatchService(engine)
  const watch = new WatchService({ tables: engine.featureTables(), processor: engineProcessor(engine) })
  const coordinator = studio?.coordinator ?? null
  let pausedHold: { release(): void } | null = null
  return {
    engine,
    studio: coordinator,
    batches,
    watch,
    async start(opts = {}) {
      // The lock before anything writes: `batches.start()` marks a running batch interrupted.
      if (opts.paused) pausedHold = holdDataFolder(engine.options.dataDir, engine.options.role)
      else engine.start()
      // Uploads are refused (503) while Redis is not known to answer: know it before listening.
      if (!opts.paused) await coordinator?.checked()
      batches.start()
      if (!opts.paused) await watch.start()
    },
    appApi: (host, address) => createAppApi({ engine, batches, host, address, watch, studio: coordinator }),
    files: batchAppFiles(batches),
    events: (address) => appEvents({ engine, batches, address, watch, studio: coordinator }),
    async stop() {
      await watch.stop()
      await batches.stop()
      await engine.stop()
      pausedHold?.release()
      pausedHold = null
    }
  }
}
