/**
 * Watched folders and their files as the code handles them, and how they are read from their
 * rows (tables of migrations 004-watch, 013-watch-file-uncertainty and 014-watch-file-touch-up).
 */
import { join } from 'node:path'
import type { Mode, OutputFormat } from '../../shared/api'
import { DEFAULT_OUTPUT_DIR_NAME, DONE_DIR_NAME, type Originals, type WatchRequest } from '../../shared/watch'

export interface WatchFolderRecord {
  id: string
  /** Absolute. */
  path: string
  recursive: boolean
  request: WatchRequest
  /** null: the default `<path>/clipdesk-out`. */
  outputDir: string | null
  nameTemplate: string
  originals: Originals
  paused: boolean
  revision: number
  createdAt: number
  updatedAt: number
}

export function outputDirOf(f: Pick<WatchFolderRecord, 'path' | 'outputDir'>): string {
  return f.outputDir ?? join(f.path, DEFAULT_OUTPUT_DIR_NAME)
}

export function doneDirOf(f: Pick<WatchFolderRecord, 'path'>): string {
  return join(f.path, DONE_DIR_NAME)
}

/** `submitting`: a submit is under way (its job, if made, is found by `token` after a crash). */
export type FileDbState = 'waiting' | 'submitting' | 'processing' | 'done' | 'skipped' | 'failed'

export interface WatchFileRecord {
  id: number
  folderId: string
  relPath: string
  size: number | null
  mtimeMs: number | null
  contentHash: string | null
  settingsHash: string | null
  state: FileDbState
  jobId: string | null
  token: string | null
  forced: boolean
  errorCode: string | null
  errorMessage: string | null
  duplicateOf: string | null
  /** The cutout's uncertainty score once done (docs/review.md), 3 decimals; null otherwise. */
  uncertainty: number | null
  /** How many times the done result was touched up in the app (docs/touch-up.md "Touch-up"), and when last. */
  touchUps: number
  touchedUpAt: number | null
  createdAt: number
  updatedAt: number
}

export interface OutputRecord {
  path: string
  folderId: string
  fileId: number | null
  jobId: string
  variation: string
  ext: string
  written: boolean
}

export interface FolderRow {
  id: string
  path: string
  recursive: number
  mode: Mode
  params: string | null
  output_format: OutputFormat
  output_dir: string | null
  name_template: string
  originals: Originals
  paused: number
  revision: number
  created_at: number
  updated_at: number
}

export interface FileRow {
  id: number
  folder_id: string
  rel_path: string
  size: number | null
  mtime_ms: number | null
  content_hash: string | null
  settings_hash: string | null
  state: FileDbState
  job_id: string | null
  token: string | null
  forced: number
  error_code: string | null
  error_message: string | null
  duplicate_of: string | null
  uncertainty?: number | null
  touch_ups?: number
  touched_up_at?: number | null
  created_at: number
  updated_at: number
}

export function toFolder(r: FolderRow): WatchFolderRecord {
  return {
    id: r.id,
    path: r.path,
    recursive: Boolean(r.recursive),
    request: { mode: r.mode, params: r.params, output_format: r.output_format },
    outputDir: r.output_dir,
    nameTemplate: r.name_template,
    originals: r.originals,
    paused: Boolean(r.paused),
    revision: Number(r.revision),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at)
  }
}

export function toFile(r: FileRow): WatchFileRecord {
  return {
    id: Number(r.id),
    folderId: r.folder_id,
    relPath: r.rel_path,
    size: r.size === null ? null : Number(r.size),
    mtimeMs: r.mtime_ms === null ? null : Number(r.mtime_ms),
    contentHash: r.content_hash,
    settingsHash: r.settings_hash,
    state: r.state,
    jobId: r.job_id,
    token: r.token,
    forced: Boolean(r.forced),
    errorCode: r.error_code,
    errorMessage: r.error_message,
    duplicateOf: r.duplicate_of,
    uncertainty: r.uncertainty === null || r.uncertainty === undefined ? null : Number(r.uncertainty),
    touchUps: Number(r.touch_ups ?? 0),
    touchedUpAt: r.touched_up_at === null || r.touched_up_at === undefined ? null : Number(r.touched_up_at),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at)
  }
}

export type FolderPatch = Partial<Pick<WatchFolderRecord, 'recursive' | 'request' | 'outputDir' | 'nameTemplate' | 'originals' | 'paused'>>
