/**
 * ag-psd, loaded the first time a PSD is read or written. Every sandbox process loads the
 * pipeline's decode and render code as it starts; ag-psd (with pako) was ~80 ms of each start's
 * ~280 ms of CPU, for the few jobs that have a PSD in or out (docs/pipeline.md, "Cold start").
 */
import { createRequire } from 'node:module'
import type * as AgPsd from 'ag-psd'

let loaded: typeof AgPsd | null = null

export function agPsd(): typeof AgPsd {
  loaded ??= createRequire(import.meta.url)('ag-psd') as typeof AgPsd
  return loaded
}
