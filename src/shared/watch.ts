/**
 * Watched folders (docs/watch.md), shared by main, the bridge and the renderer: what a folder and
 * its files look like on the wire, and the zod schemas that check arguments at the trust
 * boundary (the name-template grammar is `names.ts`).
 * No Node, no DOM.
 */
import { z } from 'zod'
import { MODES, OUTPUT_FORMATS, type Mode, type OutputFormat } from './api'
import { DEFAULT_TEMPLATES, templateProblem } from './names'
import { MAX_PARAMS_LENGTH } from './upload'

/** Output folder inside the watched folder when none is given. */
export const DEFAULT_OUTPUT_DIR_NAME = 'clipdesk-out'
/** Where originals go when `originals` is `move`: always `<folder>/clipdesk-done`. */
export const DONE_DIR_NAME = 'clipdesk-done'
/** A watched folder's names when none is given (`names.ts`, docs/names.md). */
export const DEFAULT_NAME_TEMPLATE = DEFAULT_TEMPLATES.watch!

export type Originals = 'keep' | 'move'

/** The job every file of a folder is sent with (the upload fields, docs/api.md §6). */
export interface WatchRequest {
  mode: Mode
  /** A preset name or inline pairs (docs/params.md); null for none. */
  params: string | null
  output_format: OutputFormat
}

/**
 * A file's place in the flow:
 * `waiting` (seen, not yet handed to the engine) → `processing` (a job runs) → `done` (results
 * copied into the output folder) | `failed` (with its error; retry re-submits).
 * `skipped`: the same content was already processed with the same settings (see docs/watch.md).
 */
export type WatchFileState = 'waiting' | 'processing' | 'done' | 'skipped' | 'failed'

/**
 * A folder as the service runs it:
 * `active` (watched now), `paused`, `unavailable` (the folder cannot be watched, e.g. missing;
 * retried), `stopped` (no process runs the service: start the app or `clipdesk serve`; the
 * process that runs the engine on a data folder watches its folders).
 */
export type WatchFolderState = 'active' | 'paused' | 'unavailable' | 'stopped'

export interface WatchFileView {
  id: number
  folder_id: string
  /** Path inside the watched folder, '/'-separated. */
  rel_path: string
  state: WatchFileState
  job_id: string | null
  /** `message` in plain words (src/shared/explain.ts); `detail`: the text it came from, when it says more. */
  error: { code: string; message: string; detail: string | null } | null
  /** For `skipped`: the file whose processing this one repeats. */
  duplicate_of: string | null
  /** Output files written for it (absolute paths), for `done`. */
  outputs: string[]
  /**
   * For `done`: how much the cutout needs a person's look, 0 (sure) to 1 (check this), 3
   * decimals; "to check" from TO_CHECK (src/shared/review.ts; docs/review.md). Null otherwise.
   */
  uncertainty: number | null
  /** How many times its result was touched up in the app (docs/touch-up.md "Touch-up"), and when last (ms). */
  touch_ups: number
  touched_up_at: number | null
  updated_at: number
}

/**
 * `skipped`: not processed, with the reason (the same content again, not an image); `note`:
 * something the folder waits on (a file that looks cut short); `touched_up`: a done result
 * replaced by its touch-up in the app, the previous version kept beside it.
 */
export type WatchActivityKind = 'done' | 'failed' | 'skipped' | 'retried' | 'error' | 'note' | 'touched_up'

export interface WatchActivity {
  /** The event's own number, kept as long as the event (a list's key). */
  id: number
  at: number
  kind: WatchActivityKind
  rel_path: string | null
  message: string
}

export interface WatchCounts {
  /** Seen and not yet handed to the engine. */
  waiting: number
  /** Handed to the engine: queued or running. */
  processing: number
  done: number
  skipped: number
  failed: number
  /** Of `done`: files whose cutout is to check — at a review level and not touched up since (src/shared/review.ts; docs/review.md). */
  to_check: number
  /** Of `to_check`: those at "Likely wrong" (the rest are "Worth a look"). */
  likely_wrong: number
  /** Of `done`: files touched up and saved in the app (they have left "to check"). */
  touched_up: number
}

export interface WatchFolderView {
  id: string
  path: string
  recursive: boolean
  request: WatchRequest
  /** The output folder in use (the default resolved). */
  output_dir: string
  /** True when `output_dir` is the default `<folder>/clipdesk-out`. */
  output_dir_default: boolean
  name_template: string
  originals: Originals
  paused: boolean
  state: WatchFolderState
  /** Why the folder is `unavailable` or `stopped`, or who watches it; null otherwise. */
  state_message: string | null
  counts: WatchCounts
  /** Every failed file (newest first, at most 200). */
  failed: WatchFileView[]
  /** Done files whose cutout is to check (not touched up since), most uncertain first (at most 200). */
  to_check: WatchFileView[]
  /** The latest done files, newest first (at most 50): each can be touched up. */
  done: WatchFileView[]
  /** Latest events, newest first. */
  recent: WatchActivity[]
  created_at: number
  updated_at: number
}

/** Pushed to the renderer when a folder changes; `folder` is null once it was removed. */
export interface WatchEvent {
  folder_id: string
  folder: WatchFolderView | null
}

const pathField = z.string().trim().min(1, 'choose a folder').max(4096)
const paramsField = z
  .string()
  .trim()
  .max(MAX_PARAMS_LENGTH, `params is longer than ${MAX_PARAMS_LENGTH} characters`)
  .nullish()
  .transform((v) => (v ? v : null))
const templateField = z
  .string()
  .max(512)
  .superRefine((t, ctx) => {
    const problem = templateProblem(t)
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  })

/** What `watchAdd` takes. Everything but `path` has a default. */
export const watchAddSchema = z
  .object({
    path: pathField,
    /** @default true */
    recursive: z.boolean().optional(),
    /** @default clipping */
    mode: z.enum(MODES).optional(),
    params: paramsField,
    /** @default png */
    output_format: z.enum(OUTPUT_FORMATS).optional(),
    /** null or absent: `<folder>/clipdesk-out`. */
    output_dir: pathField.nullish(),
    /** @default `{name}.{variation}.{ext}` */
    name_template: templateField.optional(),
    /** @default keep */
    originals: z.enum(['keep', 'move']).optional(),
    /** @default false */
    paused: z.boolean().optional()
  })
  .strict()

export type WatchAddRequest = z.input<typeof watchAddSchema>

/** What `watchUpdate` takes: the folder and the fields to change (its path cannot change). */
export const watchUpdateSchema = z
  .object({
    id: z.string().min(1).max(64),
    recursive: z.boolean().optional(),
    mode: z.enum(MODES).optional(),
    params: z.string().trim().max(MAX_PARAMS_LENGTH).nullable().optional(),
    output_format: z.enum(OUTPUT_FORMATS).optional(),
    output_dir: pathField.nullable().optional(),
    name_template: templateField.optional(),
    originals: z.enum(['keep', 'move']).optional(),
    paused: z.boolean().optional()
  })
  .strict()

export type WatchUpdateRequest = z.input<typeof watchUpdateSchema>

/** A folder, or one of its files when `file_id` is given. */
export const watchRetrySchema = z.object({ folder_id: z.string().min(1).max(64), file_id: z.number().int().positive().optional() }).strict()
export type WatchRetryRequest = z.input<typeof watchRetrySchema>

export interface WatchRetryResult {
  /** Files handed back to the flow. */
  retried: number
}
