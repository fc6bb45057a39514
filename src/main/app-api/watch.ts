/**
 * Watched folders over IPC and the app bridge (the "Watched folders" screen). Plain results;
 * a refusal throws EngineError (422 `validation_failed` with details naming the field, 404
 * `not_found` for an unknown folder or file), which the transports hand to the renderer as an
 * error envelope. Arguments are checked with the zod schemas of src/shared/watch.ts.
 */
import type { IpcHandlers, IpcEventMap } from '../../shared/ipc'
import { EngineError } from '../engine/errors'
import type { WatchService } from '../watch/service'

export type WatchHandlers = Pick<
  IpcHandlers,
  'watchList' | 'watchAdd' | 'watchUpdate' | 'watchRemove' | 'watchPause' | 'watchResume' | 'watchRetry'
>

function folderId(value: unknown): string {
  if (typeof value !== 'string' || value === '' || value.length > 64) {
    throw new EngineError('validation_failed', 'Expected a watched folder id.', {
      details: [{ field: 'id', issue: 'expected a non-empty string' }]
    })
  }
  return value
}

/** `watch` null: this process runs no watch service (every method but the list answers 503). */
export function createWatchHandlers(watch: WatchService | null): WatchHandlers {
  const svc = (): WatchService => {
    if (!watch) throw new EngineError('unavailable', 'Watched folders are not available in this process.')
    return watch
  }
  return {
    async watchList() {
      return watch ? watch.list() : []
    },
    async watchAdd(request) {
      return svc().add(request)
    },
    async watchUpdate(request) {
      return svc().update(request)
    },
    async watchRemove(id) {
      await svc().remove(folderId(id))
      return true
    },
    async watchPause(id) {
      return svc().pause(folderId(id))
    },
    async watchResume(id) {
      return svc().resume(folderId(id))
    },
    async watchRetry(request) {
      return svc().retry(request)
    }
  }
}

/** Pushes every folder change as the `watch` event; returns the function that stops it. */
export function forwardWatchEvents(watch: WatchService, push: (event: 'watch', payload: IpcEventMap['watch']) => void): () => void {
  const onWatch = (e: IpcEventMap['watch']): void => push('watch', e)
  watch.on('watch', onWatch)
  return () => watch.off('watch', onWatch)
}
