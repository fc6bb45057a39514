/**
 * The app's settings and window state in electron-store (`config.json` in Electron's
 * userData folder). Imported by the Electron shell only: electron-store needs Electron.
 */
import Store from 'electron-store'
import { DEFAULT_SETTINGS, settingsPatchSchema, type AppSettings, type SettingsPatch } from '../shared/app'
import { sanitizeSettings, type SettingsStore } from './settings'

export interface WindowState {
  x?: number
  y?: number
  width: number
  height: number
  maximized: boolean
}

interface StoreShape {
  settings: AppSettings
  window: WindowState
}

export class ElectronSettings implements SettingsStore {
  private readonly store = new Store<StoreShape>({
    defaults: { settings: DEFAULT_SETTINGS, window: { width: 1200, height: 800, maximized: false } }
  })

  get(): AppSettings {
    return sanitizeSettings(this.store.get('settings'))
  }

  set(patch: SettingsPatch): AppSettings {
    const next = { ...this.get(), ...settingsPatchSchema.parse(patch) }
    this.store.set('settings', next)
    return next
  }

  windowState(): WindowState {
    const w = this.store.get('window')
    const ok = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n)
    return {
      x: ok(w?.x) ? w.x : undefined,
      y: ok(w?.y) ? w.y : undefined,
      width: ok(w?.width) ? Math.max(640, w.width) : 1200,
      height: ok(w?.height) ? Math.max(480, w.height) : 800,
      maximized: w?.maximized === true
    }
  }

  saveWindowState(state: WindowState): void {
    this.store.set('window', state)
  }
}
