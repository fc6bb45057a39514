import type { StateCreator } from 'zustand'
import type { ApiSlice } from './apiSlice'
import type { BatchSlice } from './batchSlice'
import type { PresetsSlice } from './presetsSlice'
import type { SessionSlice } from './sessionSlice'
import type { TouchUpSlice } from './touchUpSlice'
import type { UiSlice } from './uiSlice'
import type { WatchSlice } from './watchSlice'

/** The one store, made of slices (zustand's slices pattern). */
export type StoreState = SessionSlice & UiSlice & BatchSlice & PresetsSlice & ApiSlice & WatchSlice & TouchUpSlice

/** A slice: sees (and may set) the whole store. */
export type Slice<T> = StateCreator<StoreState, [], [], T>
