import { readFile, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import type { StatusResponse, UploadResponse } from '../../shared/api'
import type { IpcHandlers } from '../../shared/ipc'
import type { IpcUploadRequest } from '../../shared/ipc-upload'
import { EngineError } from '../engine/errors'
import type { AppApiPort } from '../engine/ports'
import { errorAnswer, statusAnswer, uploadAnswer } from './answers'
import type { UploadInput } from '../engine/public'
import { createModelHandlers, type ModelHandlers } from './models'
import { jobOutcome } from '../outputs/engine-jobs'
import { createPresetHandlers, type PresetHandlers } from './presets'
import type { WatchService } from '../watch/service'
import { createWatchHandlers, type WatchHandlers } from './watch'

/** The app's protocol for result files (served by the Electron shell); the renderer never gets `file://` addresses. */
export const RESULT_PROTOCOL = 'clipdesk-result'

export function resultAddress(jobId: string, variation: string, ext: string): string {
  return `${RESULT_PROTOCOL}://results/${jobId}/${variation}.${ext}`
}

async function fileOf(request: IpcUploadRequest, maxBytes: number): Promise<UploadInput['file']> {
  const file = request.file
  if (file === undefined) return undefined
  if ('path' in file && typeof file.path === 'string') {
    const info = await stat(file.path).catch(() => null)
    if (!info?.isFile()) {
      throw new EngineError('validation_failed', 'The file cannot be read.', {
        details: [{ field: 'file', issue: `no readable file at ${file.path}` }]
      })
    }
    if (info.size > maxBytes) throw new EngineError('payload_too_large', `The file is larger than ${maxBytes} bytes.`)
    return { bytes: await readFile(file.path), mimeType: null, filename: basename(file.path) }
  }
  if ('bytes' in file && file.bytes instanceof Uint8Array) {
    return { bytes: Buffer.from(file.bytes), mimeType: file.type ?? null, filename: file.name }
  }
  throw new EngineError('malformed_request', 'file must be {path} or {bytes}.', {
    details: [{ field: 'file', issue: 'expected {path} or {bytes}' }]
  })
}

/** The methods answered by the engine alone; the app's other methods are composed in `app-api.ts`. */
export type EngineHandlers = Pick<IpcHandlers, 'upload' | 'status' | 'jobWarnings'> & PresetHandlers & WatchHandlers & ModelHandlers

/**
 * The engine's methods of the app API (IPC in the Electron shell, the app bridge under
 * `clipdesk serve`): the same `{status, body}` as HTTP for the same request.
 * The renderer is the app's owner, so its jobs are not charged to any key.
 */
export function createEngineHandlers(engine: AppApiPort, watch: WatchService | null = null): EngineHandlers {
  return {
    async upload(request: IpcUploadRequest): Promise<UploadResponse> {
      try {
        if (typeof request !== 'object' || request === null) throw new EngineError('malformed_request', 'The request must be an object.')
        const { file: _file, ...fields } = request
        const file = await fileOf(request, engine.options.maxUploadBytes)
        return await uploadAnswer(engine, file ? { fields, file, keyId: null } : { fields, keyId: null })
      } catch (err) {
        return errorAnswer(err)
      }
    },
    async status(jobId: string): Promise<StatusResponse> {
      return statusAnswer(engine, jobId, resultAddress)
    },
    async jobWarnings(jobId: string): Promise<string[]> {
      // The status body of the preview's job (delivery_mode=final_url, as /api/v1 gives it) has
      // no warnings; these are the lines a batch, a watched folder or `clipdesk process` gives
      // the same job's main file.
      if (typeof jobId !== 'string' || jobId === '') {
        throw new EngineError('validation_failed', 'Expected job_id to be an id.', {
          details: [{ field: 'job_id', issue: 'expected a non-empty string' }]
        })
      }
      const outcome = jobOutcome(engine, jobId, false)
      if (outcome.state === 'missing') throw new EngineError('job_not_found', `No job with id ${jobId}.`)
      return outcome.state === 'done' ? outcome.warnings : []
    },
    ...createPresetHandlers(engine),
    ...createWatchHandlers(watch),
    ...createModelHandlers(engine)
  }
}
