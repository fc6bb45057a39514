/**
 * App-only methods besides batches: settings, the local listener, API keys, and what the
 * host (Electron app or `clipdesk serve`) can do. Shared by main, the bridge and the renderer.
 */
import { z } from 'zod'

/** Settings of the app (electron-store in the app; `settings.json` of the data folder under `clipdesk serve`). */
export interface AppSettings {
  /** Run the local `/api/v1` listener on 127.0.0.1. */
  listenerEnabled: boolean
  /** Port of the listener (1–65535). */
  port: number
  /** Data folder (jobs, keys, uploads, results); empty for the default. Applies after a restart. */
  dataDir: string
  /** Default destination of new batches; empty for the default. */
  outputDir: string
  /** Jobs run at once; null: chosen for the machine's cores (docs/pipeline.md, "Using the cores"). Applies after a restart. */
  concurrency: number | null
  /** Hours results and uploads are kept after a job ends. Applies after a restart. */
  retentionHours: number
  /**
   * Studio mode: `redis://` or `rediss://` address of the shared job queue; empty for the
   * embedded default (this process's SQLite queue). Applies after a restart.
   */
  queueUrl: string
  /** Studio mode: this machine processes jobs too, besides remote workers. Applies after a restart. */
  localWorker: boolean
}

export const DEFAULT_SETTINGS: AppSettings = {
  listenerEnabled: false,
  port: 7878,
  dataDir: '',
  outputDir: '',
  concurrency: null,
  retentionHours: 24,
  queueUrl: '',
  localWorker: true
}

/** A queue address is `redis://…` or `rediss://…` with a host (or empty: the embedded queue). */
export function queueUrlProblem(value: string): string | null {
  if (value === '') return null
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'expected a redis:// or rediss:// address, e.g. redis://queue-host:6379'
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return `expected a redis:// or rediss:// address, not ${url.protocol}//`
  if (url.hostname === '') return 'the address has no host'
  return null
}

export const settingsPatchSchema = z
  .object({
    listenerEnabled: z.boolean(),
    port: z.number().int().min(1).max(65535),
    dataDir: z.string().max(4096),
    outputDir: z.string().max(4096),
    concurrency: z.number().int().min(1).max(16).nullable(),
    retentionHours: z
      .number()
      .min(1)
      .max(24 * 365),
    queueUrl: z
      .string()
      .max(2048)
      .transform((v) => v.trim())
      .superRefine((v, ctx) => {
        const problem = queueUrlProblem(v)
        if (problem) ctx.addIssue({ code: 'custom', message: problem })
      }),
    localWorker: z.boolean()
  })
  .partial()
  .strict()

export type SettingsPatch = z.infer<typeof settingsPatchSchema>

export interface ListenerStatus {
  running: boolean
  url: string | null
  error: string | null
  /** False when the listener is the server itself (`clipdesk serve`): it cannot be switched from the UI. */
  managed: boolean
}

export interface SettingsView {
  settings: AppSettings
  /** Folders actually in use (defaults resolved). */
  /** What is in use now: folders with defaults resolved, the jobs run at once (the automatic count where unset). */
  effective: { dataDir: string; outputDir: string; concurrency: number }
  listener: ListenerStatus
  /** Settings changed since start that apply only after a restart. */
  restartNeeded: Array<keyof AppSettings>
}

export interface AppInfo {
  /** `app`: the Electron window; `server`: a browser talking to `clipdesk serve`. */
  host: 'app' | 'server'
  version: string
  canPickFolder: boolean
  canOpenPath: boolean
  /** Results can be opened with another application, shown in their folder and dragged out (the app). */
  canOpenWith: boolean
  /** Results and batches can be downloaded (the browser app). */
  canDownload: boolean
  /** Default destination for a new batch. */
  defaultDestination: string
}

export interface ApiKeyView {
  id: string
  /** First characters of the secret, e.g. `cdk_AbCd`. */
  prefix: string
  name: string | null
  /** null: unlimited. */
  credits: number | null
  /** Owner keys may use the app bridge (`/api/app/*`), including managing keys. */
  admin: boolean
  /** `worker`: a studio worker's key (`clipdesk keys create --worker`), which only takes work and returns results. */
  kind: 'client' | 'worker'
  created_at: number
  revoked_at: number | null
}

export interface KeyCreateRequest {
  name?: string
  /** null or absent: unlimited. */
  credits?: number | null
  admin?: boolean
  /** `worker`: a studio worker's key (`clipdesk keys create --worker` beside a server). @default client */
  kind?: 'client' | 'worker'
}

export const keyCreateSchema = z
  .object({
    name: z.string().max(100).optional(),
    credits: z.number().int().min(0).max(1_000_000_000).nullable().optional(),
    admin: z.boolean().optional(),
    kind: z.enum(['client', 'worker']).optional()
  })
  .strict()

export interface KeyCreditRequest {
  id: string
  /** Credits to add (> 0), or null to make the key unlimited. */
  add: number | null
}

export const keyCreditSchema = z
  .object({ id: z.string().min(1).max(64), add: z.number().int().min(1).max(1_000_000_000).nullable() })
  .strict()

/** Answer of "open the output folder": the app opens it; a browser is told the path. */
export interface OpenPathResult {
  opened: boolean
  path: string
  error?: string
}

/** Screens the main process may ask the renderer to show (tray and menu). */
export type Screen = 'batches' | 'presets' | 'watch' | 'api' | 'settings'
