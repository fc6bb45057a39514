/**
 * The app's view of studio mode (API screen): the queue and the workers the coordinator has
 * seen, asked for once and then pushed as the `workers` event when they change.
 */
import type { IpcEventMap, IpcHandlers } from '../../shared/ipc'
import type { StudioView } from '../../shared/studio'
import type { StudioCoordinator } from '../studio/coordinator'

/** Workers report on every progress step: the screen is told at most this often. */
const PUSH_EVERY_MS = 1000

const EMBEDDED: StudioView = { enabled: false, queue: null, queue_available: null, workers: [] }

export function studioView(studio: StudioCoordinator | null | undefined): StudioView {
  return studio ? studio.view() : EMBEDDED
}

export function createStudioHandlers(studio: StudioCoordinator | null | undefined): Pick<IpcHandlers, 'studioWorkers'> {
  return {
    async studioWorkers() {
      return studioView(studio)
    }
  }
}

/** Pushes the view when workers change, coalesced; returns the function that stops it. */
export function forwardStudioEvents(
  studio: StudioCoordinator | null | undefined,
  push: (event: 'workers', payload: IpcEventMap['workers']) => void
): () => void {
  if (!studio) return () => undefined
  let timer: NodeJS.Timeout | null = null
  let last = 0
  const send = (): void => {
    timer = null
    last = Date.now()
    push('workers', studio.view())
  }
  const onChange = (): void => {
    if (timer) return
    timer = setTimeout(send, Math.max(0, last + PUSH_EVERY_MS - Date.now()))
    timer.unref()
  }
  studio.workers.on('change', onChange)
  return () => {
    studio.workers.off('change', onChange)
    if (timer) clearTimeout(timer)
  }
}
