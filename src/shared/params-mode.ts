/**
 * One meaning for a parameter set on every way in (docs/params.md "Mode and parameter set"): the
 * HTTP API, the app (IPC), `clipdesk process`, watched folders and presets all decide a job's
 * mode with `jobMode` and check the set against an explicit mode with `modeConflicts` (called by
 * `resolveParams`, `params-layers.ts`). A set is never dropped: it runs as `mode=params`, or each
 * of its keys applies to the mode asked for, or the request is refused naming the key and the mode.
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

/** A key of a set that the mode asked for cannot apply, and where it came from. */
export interface ModeConflict {
  key: keyof Values
  /** The values at fault, for keys that name variations (`shadowTop`); null for the others. */
  value: string | null
  /** The preset the key came from; null when the set gives it itself. */
  fromPreset: string | null
}

/**
 * The keys of a set that do not apply to the mode asked for, in the order background, shadow,
 * variations, primary. `own`: the set's own keys; `preset`: its preset's. Only `mode=clipping`
 * limits keys: it makes the subject on transparency, so a background, a shadow or a variation
 * with a background cannot apply. Every key applies to `background` (the mode gives defaults)
 * and `params`.
 */
export function modeConflictKeys(mode: Mode, own: Values, preset: Values, presetName: string | null): ModeConflict[] {
  if (mode !== 'clipping') return []
  const conflicts: ModeConflict[] = []
  const add = (key: keyof Values, value: string | null): void => {
    conflicts.push({ key, value, fromPreset: own[key] === undefined ? presetName : null })
  }
  const background = own.background ?? preset.background
  if (background && background.kind !== 'transparent') add('background', null)
  if ((own.shadow ?? preset.shadow) === 'top') add('shadow', null)
  const foreign = (own.variations ?? preset.variations)?.filter((v) => !CLIPPING_VARIATIONS.includes(v)) ?? []
  if (foreign.length > 0) add('variations', foreign.join(', '))
  const primary = own.primary ?? preset.primary
  if (primary && !CLIPPING_VARIATIONS.includes(primary)) add('primary', primary)
  return conflicts
}

const ADVICE = 'leave mode out (a parameter set alone runs as mode=params) or use mode=params'
const MAKES: Record<keyof Values, string> = {
  background: 'which makes the subject on transparency',
  shadow: 'which makes no shadow',
  variations: `which makes ${CLIPPING_VARIATIONS.join(' and ')}`,
  primary: `which makes ${CLIPPING_VARIATIONS.join(' and ')}`
}

/**
 * The keys of a set that do not apply to the mode asked for, one detail each (`params.<key>`),
 * the mode named in the issue and where the key came from (`modeConflictKeys`): the API's and
 * the app's 422, where each field carries its own issue.
 */
export function modeConflicts(mode: Mode, own: Values, preset: Values, presetName: string | null): ErrorDetail[] {
  return modeConflictKeys(mode, own, preset, presetName).map((c) => {
    const from = c.fromPreset ? ` (from the preset "${c.fromPreset}")` : ''
    const subject = c.value === null ? 'does not' : `${c.value} ${c.value.includes(',') ? 'do' : 'does'} not`
    return { field: `params.${c.key}`, issue: `${subject} apply to mode=${mode}, ${MAKES[c.key]}${from}; ${ADVICE}` }
  })
}

/** `a`, `a and b`, `a, b and c`. */
const listed = (words: string[]): string => (words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`)

/**
 * The same refusal as one short line for the command line: each key named once, where it came
 * from, what the mode makes and the way out once (`background, shadow and primary (shadowTop)
 * from the preset "ecommerce-white" do not apply to --mode clipping (…); leave --mode out or
 * use --mode params`), where the details repeat the mode and the advice for each key.
 */
export function modeConflictLine(mode: Mode, conflicts: readonly ModeConflict[]): string {
  const name = (c: ModeConflict): string => (c.value === null ? c.key : `${c.key} (${c.value})`)
  const own = conflicts.filter((c) => c.fromPreset === null).map(name)
  const presets = [...new Set(conflicts.flatMap((c) => (c.fromPreset === null ? [] : [c.fromPreset])))]
  const groups = [
    ...(own.length > 0 ? [listed(own)] : []),
    ...presets.map((p) => `${listed(conflicts.filter((c) => c.fromPreset === p).map(name))} from the preset "${p}"`)
  ]
  const plural = conflicts.length > 1 || conflicts[0]?.value?.includes(',')
  return `${groups.join('; ')} ${plural ? 'do' : 'does'} not apply to --mode ${mode} (the subject on transparency, no background or shadow); leave --mode out or use --mode params`
}
