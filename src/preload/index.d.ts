import type { ClipdeskApi } from '../shared/ipc'

declare global {
  interface Window {
    /** Present in the Electron app; absent in a browser (the renderer then uses HTTP). */
    api?: ClipdeskApi
  }
}
