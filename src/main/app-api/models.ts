import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { IpcHandlers } from '../../shared/ipc'
import { MODEL_NAME_PATTERN, type ModelAddRequest } from '../../shared/models'
import type { ModelHandlersPort } from '../engine/ports'
import { EngineError } from '../engine/errors'

export type ModelHandlers = Pick<
  IpcHandlers,
  'modelsList' | 'modelsAdd' | 'modelsRemove' | 'modelsSetDefault' | 'modelsSetDevice' | 'modelsTest'
>

/** Largest model file accepted as bytes over IPC (a path has no limit but memory's). */
const MAX_MODEL_BYTES = 2 * 2 ** 30

/**
 * Models over IPC (the app's Settings → Models). A file given as bytes (a browser, a drop
 * without a path) is stored in `<data folder>/models/` first. Refusals throw the engine's
 * EngineError (422 `validation_failed` with details).
 */
export function createModelHandlers(engine: ModelHandlersPort): ModelHandlers {
  const svc = engine.modelService
  return {
    async modelsList() {
      return svc.list()
    },
    async modelsAdd(request: ModelAddRequest) {
      const file = request?.file
      let path: string
      if (file && 'path' in file && typeof file.path === 'string') path = file.path
      else if (file && 'bytes' in file && file.bytes instanceof Uint8Array && typeof file.name === 'string') {
        if (file.bytes.length > MAX_MODEL_BYTES)
          throw new EngineError('payload_too_large', `A model file sent as bytes may have at most ${MAX_MODEL_BYTES} bytes.`)
        const base = file.name
          .toLowerCase()
          .replace(/^.*[\\/]/, '')
          .replace(/[^a-z0-9._-]/g, '-')
        if (!MODEL_NAME_PATTERN.test(base))
          throw new EngineError('validation_failed', 'The file name cannot be used.', {
            details: [{ field: 'file', issue: `"${file.name}" is not a usable file name` }]
          })
        const dir = join(engine.options.dataDir, 'models')
        await mkdir(dir, { recursive: true })
        path = join(dir, base)
        await writeFile(path, file.bytes, { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
          throw new EngineError('validation_failed', 'A model file of that name is already stored.', {
            details: [{ field: 'file', issue: err.code === 'EEXIST' ? `${base} exists in the models folder` : err.message }]
          })
        })
      } else {
        throw new EngineError('malformed_request', 'file must be {path} or {bytes, name}.', {
          details: [{ field: 'file', issue: 'expected {path} or {bytes, name}' }]
        })
      }
      return svc.add({ file: path, name: request.name, as: request.as, descriptor: request.descriptor })
    },
    async modelsRemove(name: string) {
      svc.remove(name)
      return true
    },
    async modelsSetDefault(name: string) {
      svc.setDefault(name)
      return svc.list()
    },
    async modelsSetDevice(device: string) {
      svc.setDevice(device)
      return svc.list()
    },
    async modelsTest(name: string) {
      return svc.test(name)
    }
  }
}
