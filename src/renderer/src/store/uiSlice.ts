import type { Theme, UiSlice, Slice } from './types'

const THEME_KEY = 'clipdesk.theme'

function storedTheme(): Theme {
  try {
    const t = globalThis.localStorage?.getItem(THEME_KEY)
    return t === 'light' || t === 'dark' ? t : 'system'
  } catch {
    return 'system'
  }
}

export const createUiSlice: Slice<UiSlice> = (set) => ({
  screen: 'batches',
  theme: storedTheme(),
  listFilter: 'all',
  listSort: 'added',
  setScreen: (screen) => set({ screen }),
  setListView: ({ filter, sort }) => set((s) => ({ listFilter: filter ?? s.listFilter, listSort: sort ?? s.listSort })),
  setTheme: (theme) => {
    try {
      globalThis.localStorage?.setItem(THEME_KEY, theme)
    } catch {
      // private mode: the choice lasts for this page only
    }
    set({ theme })
  }
})
