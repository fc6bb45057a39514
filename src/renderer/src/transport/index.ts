import { ipcTransport } from './ipc'
import type { Transport } from './types'

export { AppError, errorText, type Transport } from './types'
export { httpTransport } from './http'

let current: Transport | null = null

/** The transport the store's actions use; set once at start (or by a test). */
export function setTransport(t: Transport | null): void {
  current = t
}

export function transport(): Transport {
  if (!current) throw new Error('not connected')
  return current
}

export function hasTransport(): boolean {
  return current !== null
}

/** In the app, `window.api` exists from the first line on; in a browser a key is needed first. */
export function appTransport(): Transport | null {
  return typeof window !== 'undefined' && window.api ? ipcTransport(window.api) : null
}
