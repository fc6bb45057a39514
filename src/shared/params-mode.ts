/**
 * One meaning for a parameter set on every way in (docs/params.md "Mode and parameter set"): the
 * HTTP API, the app (IPC), `clipdesk process`, watched folders and presets all decide a job's
 * mode with `jobMode` and check the set against an explicit mode with `modeConflicts` (called by
 * `resolveParams`). A set is never dropped: it runs as `mode=params`, or each of its keys
 * applies to the mode asked for, or the request is refused naming the key and the mode.
 * No Node, no DOM here.
 */
import { MODES, type Mode, type Variation } from './api'
import type { ErrorDetail } from './errors'
import type { JobParams } from './params-types'

/**
 * The mode a request runs in: the one given; else `params` when a parameter set is given (a
 * preset named alone does what it says), else `clipping`. A given value outside the modes is
 * kept as it is, for the caller's own check to name.
 */
export function jobMode(given: unknown, params: unknown): Mode {
  if (given !== undefined && given !== null) return given as Mode
  const hasSet = typeof params === 'string' ? params.trim() !== '' : typeof params === 'object' && params !== null
  return hasSet ? 'params' : MODES[0]
}

type Values = Partial<Pick<JobParams, 'background' | 'shadow' | 'variations' | 'primary'>>

/** What `mode=clipping` makes: the subject on transparency (and, asked for, its mask). */
const CLIPPING_VARIATIONS: readonly Variation[] = ['clipping', 'mask']

/**
 * The keys of a set that do not apply to the mode asked for, one detail each (`params.<key>`),
 * the mode named in the issue. `own`: the set's own keys; `preset`: its preset's, named in the
 * issue as where the key came from. Only `mode=clipping` limits keys: it makes the subject on
 * transparency, so a background, a shadow or a variation with a background cannot apply. Every
 * key applies to `background` (the mode gives defaults) and `params`.
 */
export function modeConflicts(mode: Mode, own: Values, preset: Values, presetName: string | null): ErrorDetail[] {
  if (mode !== 'clipping') return []
  const details: ErrorDetail[] = []
  const from = (key: keyof Values): string => (own[key] === undefined && presetName ? ` (from the preset "${presetName}")` : '')
  const advice = 'leave mode out (a parameter set alone runs as mode=params) or use mode=params'
  const background = own.background ?? preset.background
  if (background && background.kind !== 'transparent') {
    details.push({
      field: 'params.background',
      issue: `does not apply to mode=clipping, which makes the subject on transparency${from('background')}; ${advice}`
    })
  }
  const shadow = own.shadow ?? preset.shadow
  if (shadow === 'top') {
    details.push({ field: 'params.shadow', issue: `does not apply to mode=clipping, which makes no shadow${from('shadow')}; ${advice}` })
  }
  const variations = own.variations ?? preset.variations
  const foreign = variations?.filter((v) => !CLIPPING_VARIATIONS.includes(v)) ?? []
  if (foreign.length > 0) {
    details.push({
      field: 'params.variations',
      issue: `${foreign.join(', ')} ${foreign.length === 1 ? 'does' : 'do'} not apply to mode=clipping, which makes ${CLIPPING_VARIATIONS.join(' and ')}${from('variations')}; ${advice}`
    })
  }
  const primary = own.primary ?? preset.primary
  if (primary && !CLIPPING_VARIATIONS.includes(primary)) {
    details.push({
      field: 'params.primary',
      issue: `${primary} does not apply to mode=clipping, which makes ${CLIPPING_VARIATIONS.join(' and ')}${from('primary')}; ${advice}`
    })
  }
  return details
}
