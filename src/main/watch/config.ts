/**
 * Adding, changing and removing watched folders: checks every argument (zod at the boundary,
 * then the file system), stores the folder, and answers with EngineError so IPC, the app bridge
 * and the CLI report the same problems. Works without a running service (the CLI, while no
 * engine runs); the service, in the engine's process, restarts a changed folder's runner when
 * it sees the folder's revision move.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, realpathSync, statSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import type { ErrorDetail } from '../../shared/errors'
import { validateUpload } from '../../shared/upload'
import type { PresetLookup } from '../../shared/params-layers'
import { jobMode } from '../../shared/params-mode'
import { builtinPreset } from '../../shared/presets'
import {
  DEFAULT_NAME_TEMPLATE,
  DEFAULT_OUTPUT_DIR_NAME,
  watchAddSchema,
  watchRetrySchema,
  watchUpdateSchema,
  type WatchAddRequest,
  type WatchRequest,
  type WatchRetryRequest,
  type WatchUpdateRequest
} from '../../shared/watch'
import { EngineError } from '../engine/errors'
import { setProblems } from '../engine/public'
import { doneDirOf, type WatchFolderRecord, type WatchStore } from './store'
import { checkDestination, DestinationProblem } from '../outputs/destination'
import { isInside } from '../outputs/paths'

function zodDetails(issues: { path: PropertyKey[]; message: string }[]): ErrorDetail[] {
  return issues.map((i) => ({ field: i.path.map(String).join('.') || 'request', issue: i.message }))
}

function invalid(details: ErrorDetail[]): EngineError {
  return new EngineError('validation_failed', 'The watched folder settings failed validation.', { details })
}

/** The folder as stored: absolute, symlinks resolved, an existing directory. */
function canonicalFolder(path: string): string {
  if (!isAbsolute(path)) throw invalid([{ field: 'path', issue: `expected an absolute path, got "${path}"` }])
  let real: string
  try {
    real = realpathSync(path)
  } catch {
    throw invalid([{ field: 'path', issue: `no such folder: ${path}` }])
  }
  if (!statSync(real).isDirectory()) throw invalid([{ field: 'path', issue: `not a folder: ${path}` }])
  return real
}

/**
 * Checks the job request exactly as an upload would (same 422 details), the set resolved too:
 * an unknown preset, or a key its mode cannot apply, is refused when the folder is saved, not
 * file by file.
 */
function checkRequest(request: WatchRequest, presets: PresetLookup): void {
  const fields: Record<string, unknown> = { mode: request.mode, output_format: request.output_format }
  if (request.params !== null) fields.params = request.params
  const checked = validateUpload(fields, true)
  if (!checked.ok) throw invalid(checked.details)
  const problems = setProblems({ lookup: presets }, checked.value.mode, checked.value.set)
  if (problems.length > 0) throw invalid(problems)
}

/**
 * The output folder must not be the watched folder, one of its parents, or the done folder:
 * outputs would be taken as new inputs, or originals mixed with results.
 */
function checkOutputDir(folder: string, outputDir: string | null): string | null {
  if (outputDir === null) return null
  if (!isAbsolute(outputDir)) throw invalid([{ field: 'output_dir', issue: `expected an absolute path, got "${outputDir}"` }])
  let out = resolve(outputDir)
  try {
    out = realpathSync(out)
    if (!statSync(out).isDirectory()) throw invalid([{ field: 'output_dir', issue: `not a folder: ${outputDir}` }])
  } catch (err) {
    if (err instanceof EngineError) throw err // a missing output folder is made at the first write
  }
  if (isInside(out, folder)) {
    throw invalid([{ field: 'output_dir', issue: 'the output folder must not be the watched folder or one of its parents' }])
  }
  if (isInside(doneDirOf({ path: folder }), out)) {
    throw invalid([{ field: 'output_dir', issue: 'the output folder must not be the clipdesk-done folder' }])
  }
  return out
}

/**
 * The output folder of a folder being added or changed, checked once before it is saved (it
 * exists or can be made, files can be written in it: `outputs/destination.ts`), so that a
 * read-only folder is said at once, in plain words, not file by file. The default
 * `<folder>/clipdesk-out` is checked when the folder itself exists (otherwise the other checks
 * say what is wrong with it).
 */
export async function checkWatchOutput(request: { path?: unknown; output_dir?: unknown }): Promise<void> {
  const given = typeof request.output_dir === 'string' && request.output_dir.trim() !== '' ? request.output_dir.trim() : null
  const path = typeof request.path === 'string' ? request.path.trim() : null
  const out = given ?? (path && isAbsolute(path) && existsSync(path) ? join(path, DEFAULT_OUTPUT_DIR_NAME) : null)
  if (out === null || !isAbsolute(out)) return
  try {
    await checkDestination(out)
  } catch (err) {
    if (!(err instanceof DestinationProblem)) throw err
    throw invalid([{ field: 'output_dir', issue: err.message }, ...(err.detail ? [{ field: 'output_dir.system', issue: err.detail }] : [])])
  }
}

export function newFolderId(): string {
  return `wf_${randomBytes(6).toString('hex')}`
}

export class WatchFolders {
  /** `presets`: the data folder's presets (built-in and the user's), to resolve a folder's set. */
  constructor(
    private readonly store: WatchStore,
    private readonly presets: PresetLookup = (name) => builtinPreset(name)?.values ?? null
  ) {}

  add(raw: unknown): WatchFolderRecord {
    const parsed = watchAddSchema.safeParse(raw)
    if (!parsed.success) throw invalid(zodDetails(parsed.error.issues))
    const input: WatchAddRequest = parsed.data
    const path = canonicalFolder(input.path)
    const params = input.params ?? null
    const request: WatchRequest = { mode: jobMode(input.mode, params), params, output_format: input.output_format ?? 'png' }
    checkRequest(request, this.presets)
    const outputDir = checkOutputDir(path, input.output_dir ?? null)
    const existing = this.store.folderByPath(path)
    if (existing) throw invalid([{ field: 'path', issue: `this folder is already watched (${existing.id})` }])
    return this.store.insertFolder({
      id: newFolderId(),
      path,
      recursive: input.recursive ?? true,
      request,
      outputDir,
      nameTemplate: input.name_template ?? DEFAULT_NAME_TEMPLATE,
      originals: input.originals ?? 'keep',
      paused: input.paused ?? false
    })
  }

  update(raw: unknown): WatchFolderRecord {
    const parsed = watchUpdateSchema.safeParse(raw)
    if (!parsed.success) throw invalid(zodDetails(parsed.error.issues))
    const p: WatchUpdateRequest = parsed.data
    const cur = this.get(p.id)
    const params = p.params === undefined ? cur.request.params : p.params || null
    // A folder that had no set ran in the default mode; a set given now without a mode runs as
    // mode=params, as it would on any other way in.
    const defaulted = cur.request.mode === 'clipping' && cur.request.params === null
    const request: WatchRequest = {
      mode: p.mode ?? (defaulted ? jobMode(undefined, params) : cur.request.mode),
      params,
      output_format: p.output_format ?? cur.request.output_format
    }
    checkRequest(request, this.presets)
    const outputDir = p.output_dir === undefined ? cur.outputDir : checkOutputDir(cur.path, p.output_dir)
    return this.store.updateFolder(cur.id, {
      request,
      outputDir,
      ...(p.recursive !== undefined && { recursive: p.recursive }),
      ...(p.name_template !== undefined && { nameTemplate: p.name_template }),
      ...(p.originals !== undefined && { originals: p.originals }),
      ...(p.paused !== undefined && { paused: p.paused })
    })!
  }

  /** A folder by id, or by its path (the CLI accepts either). */
  get(idOrPath: string): WatchFolderRecord {
    const byId = this.store.folder(idOrPath)
    if (byId) return byId
    if (isAbsolute(idOrPath)) {
      let real = idOrPath
      try {
        real = realpathSync(idOrPath)
      } catch {
        // a folder that is gone is still known by the path it was added with
      }
      const byPath = this.store.folderByPath(real) ?? this.store.folderByPath(resolve(idOrPath))
      if (byPath) return byPath
    }
    throw new EngineError('not_found', `No watched folder "${idOrPath}".`)
  }

  setPaused(id: string, paused: boolean): WatchFolderRecord {
    const cur = this.get(id)
    return this.store.updateFolder(cur.id, { paused })!
  }

  remove(id: string): WatchFolderRecord {
    const cur = this.get(id)
    this.store.deleteFolder(cur.id)
    return cur
  }

  /**
   * Hands failed files back to the flow (all of a folder's, or one file; a `skipped` file may be
   * named too, to process it even though its content was seen). The service submits them again
   * with the folder's current settings; a file that is gone is dropped from the list.
   */
  retry(raw: WatchRetryRequest): { folder: WatchFolderRecord; files: number[] } {
    const parsed = watchRetrySchema.safeParse(raw)
    if (!parsed.success) throw invalid(zodDetails(parsed.error.issues))
    const folder = this.get(parsed.data.folder_id)
    const fileId = parsed.data.file_id
    let targets = this.store.filesInState(['failed'], folder.id)
    if (fileId !== undefined) {
      const file = this.store.file(fileId)
      if (!file || file.folderId !== folder.id) throw new EngineError('not_found', `No file ${fileId} in watched folder ${folder.id}.`)
      if (file.state !== 'failed' && file.state !== 'skipped') {
        throw invalid([{ field: 'file_id', issue: `only a failed or skipped file can be retried; this one is ${file.state}` }])
      }
      targets = [file]
    }
    for (const f of targets) {
      this.store.patchFile(f.id, { state: f.state }, { state: 'waiting', forced: true, errorCode: null, errorMessage: null, jobId: null })
      this.store.activity.add(folder.id, 'retried', f.relPath, `retry requested${f.errorMessage ? ` (was: ${f.errorMessage})` : ''}`)
    }
    return { folder, files: targets.map((f) => f.id) }
  }
}
