import { transport } from '../transport'
import { run } from './run'
import type { ApiSlice, Slice } from './types'

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
