import type { ApiKeyView, KeyCreateRequest, ListenerStatus, SettingsPatch, SettingsView } from '../../../shared/app'
import type { StudioView } from '../../../shared/studio'
import { errorText, transport } from '../transport'
import type { Slice } from './types'

/** The API screen and settings: the local listener, keys and their credits. */
export interface ApiSlice {
  settings: SettingsView | null
  settingsError: string | null
  keys: ApiKeyView[] | null
  keysError: string | null
  /** A key just created: its secret is shown once, until dismissed. */
  createdKey: { key: string; info: ApiKeyView } | null
  /** Studio mode: the shared queue and its workers (pushed live as they change). */
  studio: StudioView | null
  studioError: string | null

  loadSettings(): Promise<void>
  saveSettings(patch: SettingsPatch): Promise<boolean>
  applyListener(listener: ListenerStatus): void
  loadKeys(): Promise<void>
  createKey(req: KeyCreateRequest): Promise<boolean>
  revokeKey(id: string): Promise<void>
  addCredits(id: string, add: number | null): Promise<void>
  dismissCreatedKey(): void
  loadStudio(): Promise<void>
  applyStudio(view: StudioView): void
}

export const createApiSlice: Slice<ApiSlice> = (set, get) => ({
  settings: null,
  settingsError: null,
  keys: null,
  keysError: null,
  createdKey: null,
  studio: null,
  studioError: null,

  async loadSettings() {
    try {
      set({ settings: await transport().settingsGet(), settingsError: null })
    } catch (err) {
      set({ settingsError: errorText(err) })
    }
  },
  async saveSettings(patch) {
    try {
      set({ settings: await transport().settingsSet(patch), settingsError: null })
      return true
    } catch (err) {
      set({ settingsError: errorText(err) })
      return false
    }
  },
  applyListener(listener) {
    const settings = get().settings
    if (settings) set({ settings: { ...settings, listener } })
  },
  async loadKeys() {
    try {
      set({ keys: await transport().keysList(), keysError: null })
    } catch (err) {
      set({ keysError: errorText(err) })
    }
  },
  async createKey(req) {
    try {
      const created = await transport().keysCreate(req)
      set({ createdKey: created, keysError: null, keys: [...(get().keys ?? []), created.info] })
      return true
    } catch (err) {
      set({ keysError: errorText(err) })
      return false
    }
  },
  async revokeKey(id) {
    try {
      const info = await transport().keysRevoke(id)
      set({ keys: (get().keys ?? []).map((k) => (k.id === id ? info : k)), keysError: null })
    } catch (err) {
      set({ keysError: errorText(err) })
    }
  },
  async addCredits(id, add) {
    try {
      const info = await transport().keysCredit({ id, add })
      set({ keys: (get().keys ?? []).map((k) => (k.id === id ? info : k)), keysError: null })
    } catch (err) {
      set({ keysError: errorText(err) })
    }
  },
  dismissCreatedKey: () => set({ createdKey: null }),
  async loadStudio() {
    try {
      set({ studio: await transport().studioWorkers(), studioError: null })
    } catch (err) {
      set({ studioError: errorText(err) })
    }
  },
  applyStudio: (view) => set({ studio: view, studioError: null })
})
