import { errorText } from '../transport'
import type { StoreState } from './types'

/** The store's fields that hold a slice's last error in words (`batchError`, `keysError`…). */
export type ErrorKey = {
  [K in keyof StoreState]: K extends `${string}Error` ? (null extends StoreState[K] ? K : never) : never
}[keyof StoreState]

/**
 * Runs one async call of a slice: what `fn` sets on success is its own business (most clear
 * their error there); when it throws, the error's words go to `key` and nothing else changes.
 * Says whether it succeeded, for the forms that close on success.
 */
export async function run(set: (patch: Partial<StoreState>) => void, key: ErrorKey, fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn()
    return true
  } catch (err) {
    set({ [key]: errorText(err) })
    return false
  }
}
