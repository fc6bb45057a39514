import type { SessionSlice, Slice } from './types'

export const createSessionSlice: Slice<SessionSlice> = () => ({
  connection: 'starting',
  connectError: null,
  appInfo: null,
  eventsLive: true
})
