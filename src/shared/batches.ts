/**
 * Batches (docs/batches.md), shared by main, the HTTP app bridge and the renderer: what a batch and
 * its items look like on the wire, and the zod schemas that check the arguments at the trust
 * boundary (IPC handler or bridge). No Node, no DOM.
 */
import { z } from 'zod'
import { MODES, OUTPUT_FORMATS, type JobStatus, type Mode, type OutputFormat } from './api'
import { templateProblem } from './names'

/** An item is `waiting` until the batch hands it to the engine, then follows its job. */
export type BatchItemStatus = 'waiting' | JobStatus
/** `done` means the job is done AND its results are copied into the destination. */
export type BatchItemState = 'pending' | 'done' | 'failed' | 'cancelled'

/** The job request every file of a batch is sent with. */
export interface BatchRequest {
  mode: Mode
  output_format: OutputFormat
  /** A preset name, inline pairs or a JSON object (docs/params.md); null for none. */
  params: string | Record<string, unknown> | null
  /** Write every variation of each photo; otherwise the primary only (unless `params` names `variations=`). */
  all_variations?: boolean
  /** Output names, with the tokens of watched folders (`{name}` `{ext}` `{variation}` `{date}` `{preset}`); null for the default. */
  name_template?: string | null
}

export interface BatchItemView {
  id: string
  batch_id: string
  /** Position in the batch (0-based, in the order files were added). */
  seq: number
  /** File name, e.g. `a.jpg`. */
  name: string
  /** Path inside the batch, mirroring the dropped folders, e.g. `shoot/day1/a.jpg`. */
  rel_path: string
  status: BatchItemStatus
  state: BatchItemState
  progress: number
  job_id: string | null
  error: string | null
  warnings: string[]
  /** Files written into the destination (absolute paths). */
  outputs: string[]
  /** The model that made the result (registry name, e.g. `medium`); null until done. */
  model: string | null
  /**
   * The device that ran it: cpu, cuda, directml, coreml or webgpu, after any fallback to the
   * CPU (the fallback's reason is then among the warnings, `…: device: …`); null until done.
   */
  device: string | null
  /** Small square image of the input (or the result once done), for the list. */
  thumb_url: string
  /** Display versions for the before/after view; null when not available (yet). */
  before_url: string | null
  after_url: string | null
  started_at: number | null
  finished_at: number | null
  /** Not an image: listed with the reason (`error`), never processed, not in the counts of photos. */
  not_image: boolean
}

export interface BatchCounts {
  total: number
  waiting: number
  running: number
  done: number
  failed: number
  cancelled: number
  /** Files that are not images, listed apart (not in `total`). */
  not_images: number
}

export interface BatchSummary {
  id: string
  name: string
  request: BatchRequest
  /** Absolute folder the results are copied into. */
  destination: string
  created_at: number
  /** When the first item started running; null before. */
  started_at: number | null
  /** When the last item ended; null while any item is pending. */
  finished_at: number | null
  counts: BatchCounts
  /** 0–100: the mean of the items' progress (ended items count 100). */
  progress: number
  /**
   * The app stopped (closed, crashed, server killed) while this batch had files to do: they
   * wait for "Resume" (`batchResume`); files already done are not run again.
   */
  interrupted: boolean
}

export interface BatchDetail extends BatchSummary {
  items: BatchItemView[]
}

/**
 * A file to add to a batch:
 * - `path`: a file or a folder on this machine (the app, from drag-and-drop); a folder is
 *   walked recursively and mirrored under its own name.
 * - `bytes`: the file itself (the app, when the file has no path).
 * - `job_id`: a job already uploaded through `/api/v1/upload` with the batch's request (browser).
 * - `refused`: a file the browser could not upload (the reason; `not_image` when it is not an
 *   image), listed with the batch and in its report so that nothing dropped goes unmentioned.
 */
export type BatchFileRef =
  | { path: string; rel_path?: string }
  | { bytes: Uint8Array; rel_path: string; type?: string }
  | { job_id: string; rel_path: string }
  | { refused: string; rel_path: string; not_image?: boolean }

export interface BatchCreateRequest {
  name?: string
  request: BatchRequest
  destination: string
}

export interface BatchAddRequest {
  batch_id: string
  files: BatchFileRef[]
}

export interface BatchAddResult {
  added: number
  /** Files that could not be added, with why. */
  refused: Array<{ rel_path: string; error: string }>
}

/** One file of a batch, or the whole batch when `item_id` is absent. */
export interface BatchTarget {
  batch_id: string
  item_id?: string
}

export const batchRequestSchema = z.object({
  mode: z.enum(MODES),
  output_format: z.enum(OUTPUT_FORMATS),
  params: z.union([z.string().max(2048), z.record(z.string(), z.unknown())]).nullish().transform((v) => v ?? null),
  all_variations: z.boolean().optional(),
  name_template: z
    .string()
    .max(512)
    .superRefine((t, ctx) => {
      const problem = templateProblem(t)
      if (problem) ctx.addIssue({ code: 'custom', message: problem })
    })
    .nullish()
    .transform((v) => v ?? null)
})

export const batchCreateSchema = z.object({
  name: z.string().max(200).optional(),
  request: batchRequestSchema,
  destination: z.string().min(1, 'choose a destination folder').max(4096)
})

const relPath = z.string().min(1).max(4096)
export const batchFileRefSchema = z.union([
  z.object({ path: z.string().min(1).max(4096), rel_path: relPath.optional() }),
  z.object({ bytes: z.instanceof(Uint8Array), rel_path: relPath, type: z.string().max(200).optional() }),
  z.object({ job_id: z.string().min(1).max(64), rel_path: relPath }),
  z.object({ refused: z.string().min(1).max(1000), rel_path: relPath, not_image: z.boolean().optional() })
])

export const batchAddSchema = z.object({
  batch_id: z.string().min(1).max(64),
  files: z.array(batchFileRefSchema).max(10_000)
})

export const batchTargetSchema = z.object({
  batch_id: z.string().min(1).max(64),
  item_id: z.string().min(1).max(64).optional()
})

/** Simplified state of an item status. */
export function itemState(status: BatchItemStatus): BatchItemState {
  if (status === 'done') return 'done'
  if (status === 'failed') return 'failed'
  if (status === 'cancelled') return 'cancelled'
  return 'pending'
}
