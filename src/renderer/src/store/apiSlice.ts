import type { ApiKeyView, KeyCreateRequest, ListenerStatus, SettingsPatch, SettingsView } from '../../../shared/app'
import type { StudioView } from '../../../shared/studio'
import { transport } from '../transport'
import { run } from './run'
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
    await run(set, 'settingsError', async () => {
      set({ settings: await transport().settingsGet(), settingsError: null })
    })
  },
  async saveSettings(patch) {
    return run(set, 'settingsError', async () => {
      set({ settings: await transport().settingsSet(patch), settingsError: null })
    })
  },
  applyListener(listener) {
    const settings = get().settings
    if (settings) set({ settings: { ...settings, listener } })
  },
  async loadKeys() {
    await run(set, 'keysError', async () => {
      set({ keys: await transport().keysList(), keysError: null })
    })
  },
  async createKey(req) {
    return run(set, 'keysError', async () => {
      const created = await transport().keysCreate(req)
      set({ createdKey: created, keysError: null, keys: [...(get().keys ?? []), created.info] })
    })
  },
  async revokeKey(id) {
    await run(set, 'keysError', async () => {
      const info = await transport().keysRevoke(id)
      set({ keys: (get().keys ?? []).map((k) => (k.id === id ? info : k)), keysError: null })
    })
  },
  async addCredits(id, add) {
    await run(set, 'keysError', async () => {
      const info = await transport().keysCredit({ id, add })
      set({ keys: (get().keys ?? []).map((k) => (k.id === id ? info : k)), keysError: null })
    })
  },
  dismissCreatedKey: () => set({ createdKey: null }),
  async loadStudio() {
    await run(set, 'studioError', async () => {
      set({ studio: await transport().studioWorkers(), studioError: null })
    })
  },
  applyStudio: (view) => set({ studio: view, studioError: null })
})
