/**
 * App settings (docs/architecture.md): listener on/off and port, data and output folders, concurrency,
 * retention. One interface with two homes: electron-store in the app (`settings-electron.ts`),
 * and a JSON file in the data folder under `clipdesk serve` (electron-store needs Electron).
 * Both keep the same keys, checked with the same schema.
 */
import { readFileSync } from 'node:fs'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { DEFAULT_SETTINGS, settingsPatchSchema, type AppSettings, type SettingsPatch } from '../shared/app'
import { writeFileAtomicSync } from './engine/file-helpers'

export interface SettingsStore {
  get(): AppSettings
  /** Applies a checked patch and returns the new settings. */
  set(patch: SettingsPatch): AppSettings
}

/** Stored values that no longer pass the schema fall back to their defaults, key by key. */
export function sanitizeSettings(stored: unknown): AppSettings {
  const out: AppSettings = { ...DEFAULT_SETTINGS }
  if (typeof stored !== 'object' || stored === null) return out
  for (const key of Object.keys(DEFAULT_SETTINGS) as Array<keyof AppSettings>) {
    const one = settingsPatchSchema.safeParse({ [key]: (stored as Record<string, unknown>)[key] })
    const value = one.success ? one.data[key] : undefined
    if (value !== undefined) (out as unknown as Record<string, unknown>)[key] = value
  }
  return out
}

/** Settings kept in a JSON file (`clipdesk serve`: `<data folder>/settings.json`). */
export class FileSettings implements SettingsStore {
  private current: AppSettings

  constructor(private readonly file: string) {
    let stored: unknown = null
    try {
      stored = JSON.parse(readFileSync(file, 'utf8'))
    } catch {
      stored = null // absent or unreadable: defaults
    }
    this.current = sanitizeSettings(stored)
  }

  get(): AppSettings {
    return { ...this.current }
  }

  set(patch: SettingsPatch): AppSettings {
    this.current = { ...this.current, ...settingsPatchSchema.parse(patch) }
    mkdirSync(dirname(this.file), { recursive: true })
    writeFileAtomicSync(this.file, Buffer.from(JSON.stringify(this.current, null, 2)))
    return this.get()
  }
}
