import type { Screen } from '../../../shared/app'
import type { Slice } from './types'

export type Theme = 'system' | 'light' | 'dark'

export interface UiSlice {
  screen: Screen
  theme: Theme
  setScreen(screen: Screen): void
  setTheme(theme: Theme): void
}

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
  setScreen: (screen) => set({ screen }),
  setTheme: (theme) => {
    try {
      globalThis.localStorage?.setItem(THEME_KEY, theme)
    } catch {
      // private mode: the choice lasts for this page only
    }
    set({ theme })
  }
})
