/**
 * Batches (docs/batches.md), shared by main, the HTTP app bridge and the renderer: what a batch and
 * its items look like on the wire, and the zod schemas that check the arguments at the trust
 * boundary (IPC handler or bridge). No Node, no DOM.
 */
import type { StoreCheck } from './store-rules'
import type { SecondLook } from './params-types'
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
  /**
   * When this view was read (ms, increasing within a server's run, shared with `BatchSummary.rev`):
   * a batch's answer read before a pushed item is older than it and is not applied over it.
   */
  rev: number
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
  /**
   * Why the file failed, in plain words (src/shared/explain.ts); while a retry runs, why the last
   * try failed (shown until the retry ends).
   */
  error: string | null
  /** The text the problem came from (the system's or an image library's), when it says more than `error`. */
  error_detail: string | null
  warnings: string[]
  /** Files written into the destination (absolute paths). */
  outputs: string[]
  /**
   * How much the cutout needs a person's look, 0 (sure) to 1 (check this), 3 decimals; its review
   * level ("Likely wrong", "Worth a look") is `fileReviewLevel(uncertainty, touch_ups)`
   * (src/shared/review.ts; docs/review.md). Kept after a touch-up (the first cutout's score).
   * Null until done, and for files done before scores.
   */
  uncertainty: number | null
  /**
   * The written file against the store its preset is named for (`amazon`…): "Ready for Amazon",
   * or "Not ready" with the reasons (docs/store-ready.md); null for other presets, and until done.
   */
  checks?: StoreCheck[] | null
  /** The second look its photo got (docs/pipeline.md "Second look"): views beyond the first and why; null: none. */
  second_look?: SecondLook | null
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
  /** Times the file's outputs were replaced by a touch-up (docs/touch-up.md "Touch-up"), and when last. */
  touch_ups: number
  touched_up_at: number | null
}

export interface BatchCounts {
  total: number
  waiting: number
  running: number
  done: number
  failed: number
  cancelled: number
  /** Of `cancelled`: files stopped before they started (the rest were stopped while running). */
  not_started: number
  /** Files that are not images, listed apart (not in `total`). */
  not_images: number
  /**
   * Of `done`: files whose cutout is to check — at a review level (uncertainty ≥ TO_CHECK,
   * src/shared/review.ts; docs/review.md) and not touched up since.
   */
  to_check: number
  /** Of `to_check`: those at "Likely wrong" (the rest are "Worth a look"). */
  likely_wrong: number
  /** Of `done`: files touched up and saved (they have left "to check"). */
  touched_up: number
  /**
   * The warnings about the done files' written files, in all (a file can have several: "enlarged
   * 3.1×…", "metadata: …"); the end state says them ("Done with 2 warnings"). Absent: none counted.
   */
  warnings?: number
}

/** Batch counts, every one 0 but those given. */
export function batchCounts(given: Partial<BatchCounts> = {}): BatchCounts {
  return {
    total: 0,
    waiting: 0,
    running: 0,
    done: 0,
    failed: 0,
    cancelled: 0,
    not_started: 0,
    not_images: 0,
    to_check: 0,
    likely_wrong: 0,
    touched_up: 0,
    ...given
  }
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
  /**
   * Files the app said it would add (counted before the first is sent), or null: screens show
   * this as the total while files are still being added, so the total does not grow.
   */
  expected_files: number | null
  /**
   * When this summary was read (ms, increasing within a server's run): an answer that arrives
   * after a newer pushed summary is older than it and is not applied over it.
   */
  rev: number
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
  /**
   * What will be added, counted before the first file is sent: the destination is checked for
   * the space the batch's output needs, and the total is shown from the start.
   */
  expected?: { files: number; bytes: number }
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
  params: z
    .union([z.string().max(2048), z.record(z.string(), z.unknown())])
    .nullish()
    .transform((v) => v ?? null),
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
  destination: z.string().min(1, 'choose a destination folder').max(4096),
  expected: z.object({ files: z.number().int().min(0).max(10_000_000), bytes: z.number().min(0) }).optional()
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

/** How a batch stands, as every screen, the tray and the report say it. */
export type BatchOutcomeKind =
  | 'empty'
  | 'running'
  | 'interrupted'
  | 'done'
  | 'done-with-warnings'
  | 'done-with-errors'
  | 'stopped'
  | 'failed'

export interface BatchOutcome {
  kind: BatchOutcomeKind
  /**
   * One line: "Done: all 45 files", "Done with 2 warnings", "Done with 2 errors", "Stopped: 9 done,
   * 35 not started", "Failed: all 5 files".
   */
  title: string
  /**
   * The overall bar: while running, the batch's progress; once ended, the share of files done
   * (a stopped batch of 44 with 9 done shows 20 %, never a full bar).
   */
  bar: number
}

const files = (n: number): string => `${n} ${n === 1 ? 'file' : 'files'}`
const count = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`

/**
 * The end state of a batch in words: nothing reads as success unless every file succeeded. A
 * batch with cancelled files is "Stopped" (done, failed, stopped while running, not started);
 * one whose every file failed is "Failed"; one with some failures is "Done with N errors"; one
 * whose written files carry warnings is "Done with N warnings" (with its errors, "Done with 1
 * error, 2 warnings"): a warning is said where the batch's end is said, not only on its row.
 */
export function batchOutcome(
  s: Pick<BatchSummary, 'counts' | 'interrupted' | 'progress'> & { expected_files?: number | null }
): BatchOutcome {
  const c = s.counts
  const pending = c.waiting + c.running
  // While files are still being added, the total announced at the start (it does not grow).
  const total = pending > 0 ? Math.max(c.total, s.expected_files ?? 0) : c.total
  const share = total === 0 ? 0 : Math.floor((100 * c.done) / total)
  if (c.total === 0 && (s.expected_files ?? 0) > 0 && c.not_images < (s.expected_files ?? 0)) {
    return { kind: 'running', title: `Adding ${files(s.expected_files ?? 0)}…`, bar: 0 }
  }
  if (c.total === 0) return { kind: 'empty', title: c.not_images > 0 ? 'No images in this batch' : 'No files yet', bar: 0 }
  if (pending > 0 && s.interrupted) return { kind: 'interrupted', title: `Interrupted: ${c.done} done, ${pending} to do`, bar: share }
  const failedPart = c.failed > 0 ? `, ${c.failed} failed` : ''
  if (pending > 0)
    return {
      kind: 'running',
      title: `Running: ${c.done} of ${total} done${failedPart}`,
      bar: total > c.total ? Math.floor((s.progress * c.total) / total) : s.progress
    }
  if (c.cancelled > 0) {
    const cutShort = c.cancelled - c.not_started
    const parts = [`${c.done} done`]
    if (c.failed > 0) parts.push(`${c.failed} failed`)
    if (cutShort > 0) parts.push(`${cutShort} stopped while running`)
    if (c.not_started > 0) parts.push(`${c.not_started} not started`)
    return { kind: 'stopped', title: `Stopped: ${parts.join(', ')}`, bar: share }
  }
  if (c.done === 0)
    return {
      kind: 'failed',
      title: c.failed === 1 ? 'Failed: the file could not be made' : `Failed: none of the ${c.failed} files could be made`,
      bar: 0
    }
  const warnings = c.warnings ?? 0
  const warningPart = warnings > 0 ? count(warnings, 'warning') : ''
  if (c.failed > 0)
    return {
      kind: 'done-with-errors',
      title: `Done with ${count(c.failed, 'error')}${warningPart ? `, ${warningPart}` : ''}`,
      bar: share
    }
  if (warnings > 0) return { kind: 'done-with-warnings', title: `Done with ${warningPart}`, bar: 100 }
  return { kind: 'done', title: c.done === 1 ? 'Done: 1 file' : `Done: all ${files(c.done)}`, bar: 100 }
}
