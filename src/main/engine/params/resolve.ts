/**
 * Resolves a job's mode and `params` into the full parameter set the pipeline runs with
 * (grammar and layering in `shared/params.ts`, presets from the PresetStore).
 *
 * Resolved once, when the upload is accepted, and stored with the job: a bad set is refused
 * (`validation_failed`) before a job exists, and editing or deleting a preset later does not change jobs
 * already queued.
 */
import type { DeliveryMode, Mode } from '../../../shared/api'
import type { ErrorDetail } from '../../../shared/errors'
import { BUILTIN_PRESETS } from '../../../shared/presets'
import { suggestPresets } from '../../../shared/suggest'
import { parseParams, resolveParams, type ParamSet, type ParamsResolution } from '../../../shared/params'
import type { JobParams } from '../../../shared/params-types'
import { EngineError as ApiError, JobFailure } from '../errors'
import type { JobParamsStore } from '../store/job-params'
import type { JobRecord } from '../store/jobs'
import type { PresetStore } from '../store/presets'

type RawParams = string | Record<string, unknown> | null

/** The presets a set may name; `list` (for "did you mean") when the caller has the store, else the built-in names are suggested. */
type Presets = Pick<PresetStore, 'lookup'> & Partial<Pick<PresetStore, 'list'>>

/** The set resolved; an unknown preset's issue names the nearest preset's name when one is near (`shared/suggest.ts`). */
function resolve(presets: Presets, mode: Mode, params: RawParams): ParamsResolution {
  const r = resolveSet(presets, mode, params)
  return r.ok
    ? r
    : {
        ok: false,
        details: suggestPresets(
          r.details,
          (presets.list?.() ?? BUILTIN_PRESETS).map((p) => p.name)
        )
      }
}

function resolveSet(presets: Presets, mode: Mode, params: RawParams): ParamsResolution {
  let set: ParamSet | null = null
  if (params !== null && params !== '') {
    const parsed = parseParams(params)
    if (!parsed.ok) {
      // Every problem at once: what did parse is still resolved (an unknown preset, a margin
      // too wide for the size), its problems added for the keys not already reported.
      if (!parsed.partial) return parsed
      const later = resolveParams(mode, parsed.partial, presets.lookup)
      return { ok: false, details: later.ok ? parsed.details : mergeDetails(parsed.details, later.details) }
    }
    set = parsed.value
  }
  return resolveParams(mode, set, presets.lookup)
}

/** `first`, then the problems of `more` about fields `first` does not name. */
export function mergeDetails(first: ErrorDetail[], more: ErrorDetail[]): ErrorDetail[] {
  const named = new Set(first.map((d) => d.field))
  return [...first, ...more.filter((d) => !named.has(d.field))]
}

/**
 * The problems of a job's parameter set (grammar, presets, layering) for an upload already
 * refused for other fields, so that one answer names them all; [] when there is nothing to add.
 */
export function paramsProblems(presets: Presets, mode: Mode, params: RawParams): ErrorDetail[] {
  if (params === null || params === '') return []
  const r = resolve(presets, mode, params)
  return r.ok ? [] : r.details
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

/** At upload: the job's parameter set, or ApiError `validation_failed` naming each bad key. */
export function resolveUploadParams(presets: Presets, mode: Mode, params: RawParams, deliveryMode: DeliveryMode): JobParams {
  const r = resolve(presets, mode, params)
  if (!r.ok) throw new ApiError('validation_failed', 'The parameter set failed validation.', { details: r.details })
  return narrowForDelivery(r.value, deliveryMode)
}

/**
 * When the job runs: the set stored at upload; for a job accepted before sets were stored,
 * resolved now (and failed, not refused, when it no longer resolves).
 */
export function resolveJobParams(ctx: { jobParams: JobParamsStore; presets: PresetStore }, job: JobRecord): JobParams {
  const stored = ctx.jobParams.get(job.id)
  if (stored) return stored
  const r = resolve(ctx.presets, job.mode, job.params)
  if (!r.ok) {
    throw new JobFailure('pipeline_error', `The parameter set is not valid: ${r.details.map((d) => `${d.field}: ${d.issue}`).join('; ')}`)
  }
  return narrowForDelivery(r.value, job.deliveryMode)
}
