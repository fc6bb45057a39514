import { create } from 'zustand'
import { createApiSlice } from './apiSlice'
import { createBatchSlice } from './batchSlice'
import { createPresetsSlice } from './presetsSlice'
import { createSessionSlice } from './sessionSlice'
import { createTouchUpSlice } from './touchUpSlice'
import type { StoreState } from './types'
import { createUiSlice } from './uiSlice'
import { createWatchSlice } from './watchSlice'

export type { Slice, StoreState } from './types'

/**
 * The renderer's one store, made of slices. Components read it with selectors (and
 * `useShallow` for several values); actions live in the slices and reach the engine through
 * `transport()`, the same in the app (IPC) and in a browser (HTTP).
 */
export const useStore = create<StoreState>()((...a) => ({
  ...createSessionSlice(...a),
  ...createUiSlice(...a),
  ...createBatchSlice(...a),
  ...createPresetsSlice(...a),
  ...createApiSlice(...a),
  ...createWatchSlice(...a),
  ...createTouchUpSlice(...a)
}))

const initialState = useStore.getState()

/** Back to the first state (tests). */
export function resetStore(): void {
  useStore.setState(initialState, true)
}
