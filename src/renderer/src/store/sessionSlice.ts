import type { AppInfo } from '../../../shared/app'
import type { Slice } from './types'

/**
 * How the renderer is connected: `ready` with the app (IPC) at once; in a browser after an
 * owner key was entered (kept in localStorage) and accepted by the server.
 */
export interface SessionSlice {
  connection: 'starting' | 'needsKey' | 'ready'
  /** Why the key was refused, shown on the connect screen. */
  connectError: string | null
  appInfo: AppInfo | null
  /** The server's event stream is (re)connected; false while it is down (browser). */
  eventsLive: boolean
}

export const createSessionSlice: Slice<SessionSlice> = () => ({
  connection: 'starting',
  connectError: null,
  appInfo: null,
  eventsLive: true
})
