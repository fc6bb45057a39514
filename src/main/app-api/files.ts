/**
 * The app's files as the transports serve them: an item's preview images, one written file of
 * a batch, and a batch's files for its zip. A transport (IPC's result protocol, the HTTP app
 * bridge) takes an `AppFiles` and `AppEvents` made by the composition, never the batch or
 * watch services, so that it knows no feature's internals (docs/architecture.md, Layers).
 */
import type { PreviewKind } from '../../shared/previews'
import type { BatchService } from '../batches/service'
import { type EventPush, forwardAppEvents, type AppApiDeps } from './app-api'

export type { PreviewAddress } from '../batches/service'

/** A written file: where it is, and its '/'-separated name inside its destination. */
export interface AppFile {
  path: string
  name: string
}

export interface AppFiles {
  /** An item's preview image, made on first use; null when it has none (yet). */
  previewFile(itemId: string, kind: PreviewKind): Promise<string | null>
  /** An item's n-th written file; null when there is no such item (an `EngineError` when it has no such file). */
  writtenFile(itemId: string, output: number): AppFile | null
  /** Every written file of a batch, the batch's name, and its report once it has ended (`clipdesk-report.json`, `.txt`). */
  batchFiles(batchId: string): { files: AppFile[]; name: string; reports: Array<{ name: string; text: string }> }
}

/** Subscribes to the app's events (the contract's `IpcEventMap`); returns the function that ends the subscription. */
export type AppEvents = (push: EventPush) => () => void

/** The files of the app's batches. */
export function batchAppFiles(batches: BatchService): AppFiles {
  return {
    previewFile: (itemId, kind) => batches.previewFile(itemId, kind),
    writtenFile(itemId, output) {
      const item = batches.store.item(itemId)
      return item ? batches.resultFile({ batch_id: item.batchId, item_id: itemId, output }) : null
    },
    batchFiles: (batchId) => batches.batchFiles(batchId)
  }
}

/** The app's events over these services, items addressed with `address`. */
export function appEvents(deps: Omit<AppApiDeps, 'host'>): AppEvents {
  return (push) => forwardAppEvents(deps, push)
}
