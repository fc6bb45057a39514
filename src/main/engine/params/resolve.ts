/**
 * Resolves a job's parameter set against the presets: the layering of `shared/params-layers.ts`
 * over the preset store, an unknown preset's issue naming the nearest preset's name when one is
 * near (`shared/suggest.ts`). Three ways in, each reading the set once:
 * - an upload (`resolveUpload`): the fields' checks (`shared/upload.ts`) parse the set and decide
 *   the mode, and the set they parsed is resolved, when the upload is accepted, and stored with
 *   the job: a bad set is refused (`validation_failed`) before a job exists (docs/api.md §6.3);
 * - a set given as text (`paramsProblems`: the app's check of a form);
 * - a job's set when it runs (`resolveJobParams`): the one stored at upload, so that editing or
 *   deleting a preset later does not change jobs already queued.
 */
import type { DeliveryMode, Mode, UploadFields } from '../../../shared/api'
import type { ErrorDetail } from '../../../shared/errors'
import { parseParams } from '../../../shared/params'
import type { ParamSet } from '../../../shared/params-keys'
import { resolveParams, type ParamsResolution } from '../../../shared/params-layers'
import type { JobParams } from '../../../shared/params-types'
import { BUILTIN_PRESETS } from '../../../shared/presets'
import { suggestPresets } from '../../../shared/suggest'
import { validateUpload, type UploadRequest } from '../../../shared/upload'
import { EngineError, JobFailure } from '../errors'
import type { JobParamsStore } from '../store/job-params'
import type { JobRecord } from '../store/jobs'
import type { PresetStore } from '../store/presets'

/** A set as a request or a stored job gives it: text, a JSON object, or none. */
export type RawParams = string | Record<string, unknown> | null

/** The presets a set may name; `list` (for "did you mean") when the caller has the store, else the built-in names are suggested. */
export type Presets = Pick<PresetStore, 'lookup'> & Partial<Pick<PresetStore, 'list'>>

/** The names "did you mean" chooses from: the store's presets, else the built-in ones. */
export function presetNames(presets: Presets): string[] {
  return (presets.list?.() ?? BUILTIN_PRESETS).map((p) => p.name)
}

/** The set laid over the mode's defaults and its preset (none: the defaults alone). */
export function resolveSet(presets: Presets, mode: Mode, set: ParamSet | null): ParamsResolution {
  const r = resolveParams(mode, set, presets.lookup)
  return r.ok ? r : { ok: false, details: suggestPresets(r.details, presetNames(presets)) }
}

/** An accepted upload's request and the parameter set of its job. */
export interface ResolvedUpload {
  request: UploadRequest
  params: JobParams
}

/**
 * The fields checked and the set resolved (narrowed to what the delivery makes); throws the
 * EngineError naming every problem at once: a refusal for other fields names the set's presets
 * and layering too, not only its grammar. The set goes down to the shared checks and layering
 * once (the layering as `resolveSet` lays it), and their answer is judged here.
 */
export function resolveUpload(presets: Presets, fields: UploadFields, hasFile: boolean): ResolvedUpload {
  const checked = validateUpload(fields, hasFile)
  // Resolved when the fields are good; for a refusal, what did parse of a set given.
  const given = checked.ok ? checked.value : checked.code === 'validation_failed' && checked.parsed.set ? checked.parsed : null
  const resolved = given && resolveParams(given.mode, given.set, presets.lookup)
  const problems = resolved && !resolved.ok ? suggestPresets(resolved.details, presetNames(presets)) : []
  if (!checked.ok) {
    const details = checked.code === 'validation_failed' ? mergeDetails(checked.details, problems) : checked.details
    throw new EngineError(checked.code, checked.message, { details })
  }
  if (!resolved?.ok) throw new EngineError('validation_failed', 'The parameter set failed validation.', { details: problems })
  return { request: checked.value, params: narrowForDelivery(resolved.value, checked.value.delivery_mode) }
}

/** The problems of a set already parsed (or what did parse of it), for a request refused for other fields too; [] for none. */
export function setProblems(presets: Presets, mode: Mode, set: ParamSet | null): ErrorDetail[] {
  if (set === null) return []
  const r = resolveSet(presets, mode, set)
  return r.ok ? [] : r.details
}

/**
 * A set given as text (or a JSON object) parsed, then resolved. Every problem at once: what did
 * parse is still resolved (an unknown preset, a margin too wide for the size), its problems
 * added for the keys not already reported.
 */
export function resolveText(presets: Presets, mode: Mode, params: RawParams): ParamsResolution {
  if (params === null || params === '') return resolveSet(presets, mode, null)
  const parsed = parseParams(params)
  if (parsed.ok) return resolveSet(presets, mode, parsed.value)
  return { ok: false, details: mergeDetails(parsed.details, setProblems(presets, mode, parsed.partial ?? null)) }
}

/** The problems of a set given as text (grammar, presets, layering), each naming its field; [] when there is nothing to say. */
export function paramsProblems(presets: Presets, mode: Mode, params: RawParams): ErrorDetail[] {
  if (params === null || params === '') return []
  const r = resolveText(presets, mode, params)
  return r.ok ? [] : r.details
}

/** `first`, then the problems of `more` about fields `first` does not name. */
export function mergeDetails(first: ErrorDetail[], more: ErrorDetail[]): ErrorDetail[] {
  const named = new Set(first.map((d) => d.field))
  return [...first, ...more.filter((d) => !named.has(d.field))]
}

/**
 * With `delivery_mode=final_url` only the primary is delivered, so only it is made (and
 * `compose`, the fallback should a `shadowTop` primary be skipped).
 */
export function narrowForDelivery(params: JobParams, deliveryMode: DeliveryMode): JobParams {
  if (deliveryMode !== 'final_url') return params
  const variations = params.primary === 'shadowTop' ? (['shadowTop', 'compose'] as const) : [params.primary]
  return { ...params, variations: [...variations] }
}

/**
 * When the job runs: the set stored at upload; for a job accepted before sets were stored,
 * resolved now from its text (and failed, not refused, when it no longer resolves).
 */
export function resolveJobParams(ctx: { jobParams: JobParamsStore; presets: PresetStore }, job: JobRecord): JobParams {
  const stored = ctx.jobParams.get(job.id)
  if (stored) return stored
  const r = resolveText(ctx.presets, job.mode, job.params)
  if (!r.ok) {
    throw new JobFailure('pipeline_error', `The parameter set is not valid: ${r.details.map((d) => `${d.field}: ${d.issue}`).join('; ')}`)
  }
  return narrowForDelivery(r.value, job.deliveryMode)
}
