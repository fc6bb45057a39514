/**
 * The whole app API, composed once from the engine's handlers and the app's own services,
 * and used by both transports of the renderer: IPC in the Electron shell, and the HTTP app
 * bridge (`/api/app/<method>`) under `clipdesk serve`. Only the host (what Electron can do
 * that a server cannot) and the preview address differ between the two.
 */
import type { z } from 'zod'
import {
  keyCreateSchema,
  keyCreditSchema,
  settingsPatchSchema,
  type ApiKeyView,
  type AppSettings,
  type ListenerStatus,
  type SettingsView
} from '../../shared/app'
import { batchAddSchema, batchCreateSchema, batchTargetSchema } from '../../shared/batches'
import type { IpcEvent, IpcEventMap, IpcHandlers } from '../../shared/ipc'
import { touchUpPreviewSchema, touchUpSaveSchema } from '../../shared/touchup'
import type { BatchService, PreviewAddress } from '../batches/service'
import type { ApiKeyInfo, AppApiPort } from '../engine/ports'
import { EngineError } from '../engine/errors'
import type { SettingsStore } from '../settings'
import { TouchUps } from '../touchup/touchups'
import { createEngineHandlers } from './engine-handlers'
import type { WatchService } from '../watch/service'
import { forwardWatchEvents } from './watch'
import type { StudioCoordinator } from '../studio/coordinator'
import { createStudioHandlers, forwardStudioEvents } from './studio'
import { createResultHandlers, type ResultHost } from './results'

/** What differs between the Electron app and `clipdesk serve`. */
export interface AppHost extends ResultHost {
  host: 'app' | 'server'
  version: string
  settings: SettingsStore
  /** Folders in use now (defaults resolved). */
  effective: { dataDir: string; outputDir: string }
  /** Settings as they were when the engine started: changes to some apply only after a restart. */
  startedWith: AppSettings
  listener(): ListenerStatus
  /** Starts, stops or moves the local listener at once (the app only). */
  applyListener?(settings: AppSettings): Promise<void>
  /** A native folder picker (the app only). */
  pickFolder?(): Promise<string | null>
  /** Opens a folder in the file manager; resolves '' or an error message (Electron's shell.openPath). */
  openPath?(path: string): Promise<string>
}

export interface AppApiDeps {
  engine: AppApiPort
  batches: BatchService
  host: AppHost
  /** How this transport addresses item previews. */
  address: PreviewAddress
  /** Watched folders (src/main/watch); absent: their methods answer 503. */
  watch?: WatchService
  /** Studio mode's coordinator; absent in the embedded default. */
  studio?: StudioCoordinator | null
}

/** Settings that the running engine took at start. */
const RESTART_KEYS: Array<keyof AppSettings> = ['dataDir', 'concurrency', 'retentionHours', 'queueUrl', 'localWorker']

/** zod at the trust boundary: a bad argument is a 422 naming each offending field. */
export function parseArg<S extends z.ZodType>(schema: S, value: unknown, name = 'argument'): z.infer<S> {
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  throw new EngineError('validation_failed', `The ${name} is not valid.`, {
    details: parsed.error.issues.map((issue) => ({ field: issue.path.join('.') || name, issue: issue.message }))
  })
}

function idArg(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '' || value.length > 64) {
    throw new EngineError('validation_failed', `Expected ${name} to be an id.`, {
      details: [{ field: name, issue: 'expected a non-empty string' }]
    })
  }
  return value
}

export function keyView(info: ApiKeyInfo): ApiKeyView {
  return {
    id: info.id,
    prefix: info.prefix,
    name: info.name,
    credits: info.credits,
    admin: info.admin,
    kind: info.kind,
    created_at: info.createdAt,
    revoked_at: info.revokedAt
  }
}

function settingsView(host: AppHost, engine: AppApiPort): SettingsView {
  const settings = host.settings.get()
  return {
    settings,
    effective: { ...host.effective, concurrency: engine.options.concurrency },
    listener: host.listener(),
    restartNeeded: RESTART_KEYS.filter((k) => settings[k] !== host.startedWith[k])
  }
}

export function createAppApi({ engine, batches, host, address, watch, studio }: AppApiDeps): IpcHandlers {
  // Touch-up of a done file of a batch or of a watched folder: one code path, each feature says what its file is.
  // dragFile is the Electron shell's own (a drag starts from the window, not over IPC's invoke).
  const { dragFile: _drag, ...resultHandlers } = createResultHandlers(batches, host)
  const touchUps = new TouchUps(engine, {
    batch: (target) => batches.touchUpFile(target),
    watch: watch ? (target) => watch.touchUpFile(target) : null
  })
  return {
    ...createEngineHandlers(engine, watch ?? null), // upload, status, presets, watched folders, models
    ...resultHandlers, // open with, show in folder, downloads
    ...createStudioHandlers(studio),

    async batchesList() {
      return batches.list()
    },
    async batchGet(id) {
      return batches.detail(idArg(id, 'batch_id'), address)
    },
    async batchCreate(req) {
      return batches.create(parseArg(batchCreateSchema, req, 'batch'))
    },
    async batchAdd(req) {
      const { batch_id, files } = parseArg(batchAddSchema, req, 'files')
      return batches.add(batch_id, files)
    },
    async batchCancel(target) {
      return batches.cancel(parseArg(batchTargetSchema, target, 'target'))
    },
    async batchRetry(target) {
      return batches.retry(parseArg(batchTargetSchema, target, 'target'))
    },
    async batchResume(id) {
      return batches.resume(idArg(id, 'batch_id'))
    },
    async batchDelete(id) {
      return batches.remove(idArg(id, 'batch_id'))
    },
    async batchOpenOutput(target) {
      const path = batches.outputFolder(parseArg(batchTargetSchema, target, 'target'))
      if (!host.openPath) return { opened: false, path }
      const error = await host.openPath(path)
      return error ? { opened: false, path, error } : { opened: true, path }
    },
    async touchUpPreview(req) {
      const { target, hint, regions } = parseArg(touchUpPreviewSchema, req, 'touch-up')
      return touchUps.preview(target, hint === undefined ? null : Buffer.from(hint, 'base64'), regions)
    },
    async touchUp(req) {
      const { target, hint, regions } = parseArg(touchUpSaveSchema, req, 'touch-up')
      return touchUps.save(target, Buffer.from(hint, 'base64'), regions)
    },
    async jobCancel(jobId) {
      return engine.cancel(idArg(jobId, 'job_id'))
    },

    async appInfo() {
      return {
        host: host.host,
        version: host.version,
        canPickFolder: host.pickFolder !== undefined,
        canOpenPath: host.openPath !== undefined,
        canOpenWith: host.openWith !== undefined,
        canDownload: host.downloads !== undefined,
        defaultDestination: host.effective.outputDir
      }
    },
    async pickFolder() {
      return host.pickFolder ? host.pickFolder() : null
    },
    async settingsGet() {
      return settingsView(host, engine)
    },
    async settingsSet(patch) {
      const checked = parseArg(settingsPatchSchema, patch, 'settings')
      const before = host.settings.get()
      const after = host.settings.set(checked)
      if (host.applyListener && (before.listenerEnabled !== after.listenerEnabled || before.port !== after.port)) {
        await host.applyListener(after)
      }
      return settingsView(host, engine)
    },

    async keysList() {
      return engine.keysList().map(keyView)
    },
    async keysCreate(req) {
      const { name, credits, admin, kind } = parseArg(keyCreateSchema, req ?? {}, 'key')
      if (admin && kind === 'worker')
        throw new EngineError('validation_failed', 'A key is either an owner key or a worker key.', {
          details: [{ field: 'key.kind', issue: 'a worker key cannot be an owner key' }]
        })
      const { key, info } = engine.createKey({ credits: credits ?? null, name: name?.trim() || undefined, admin: admin ?? false, kind })
      return { key, info: keyView(info) }
    },
    async keysRevoke(id) {
      const keyId = idArg(id, 'id')
      if (!engine.key(keyId)) throw new EngineError('not_found', `No key with id ${keyId}.`)
      engine.revokeKey(keyId)
      return keyView(engine.key(keyId)!)
    },
    async keysCredit(req) {
      const { id, add } = parseArg(keyCreditSchema, req, 'credit')
      const info = engine.creditKey(id, add)
      if (!info) throw new EngineError('not_found', `No key with id ${id}.`)
      return keyView(info)
    }
  }
}

export type EventPush = <E extends IpcEvent>(event: E, payload: IpcEventMap[E]) => void

/**
 * Forwards engine and batch changes as the contract's events (IPC `webContents.send`, or the
 * bridge's Server-Sent Events). Returns the function that stops forwarding.
 */
export function forwardAppEvents({ engine, batches, address, watch, studio }: Omit<AppApiDeps, 'host'>, push: EventPush): () => void {
  const onJob = (e: IpcEventMap['job']): void => push('job', e)
  const onItem = (item: Parameters<typeof batches.view>[0]): void => push('batchItem', batches.view(item, address))
  const onBatch = (id: string): void => {
    if (batches.store.batch(id)) push('batch', batches.summary(id))
  }
  engine.on('job', onJob)
  batches.on('item', onItem)
  batches.on('batch', onBatch)
  const stopWatch = watch ? forwardWatchEvents(watch, push) : () => undefined
  const stopStudio = forwardStudioEvents(studio, push)
  return () => {
    stopWatch()
    stopStudio()
    engine.off('job', onJob)
    batches.off('item', onItem)
    batches.off('batch', onBatch)
  }
}
