/**
 * The layering of parameter sets (docs/params.md "Parameter sets"): the mode's defaults, a
 * preset's values and a set's own keys laid on top of each other into the full `JobParams` a
 * job runs with. Pure: presets come through a lookup function, so that the engine (its preset
 * store), the CLI and the renderer resolve alike. Every problem is a detail naming the key
 * (`params.<key>`), all of them at once. No Node, no DOM here.
 */
import type { Mode, Variation } from './api'
import type { ErrorDetail } from './errors'
import { formatValue } from './params-format'
import { marginRoomProblem } from './params-framing'
import { checkSet, type ParamSet, type ParamValues } from './params-keys'
import { modeConflicts } from './params-mode'
import { MODE_DEFAULTS, type JobParams } from './params-types'

export type ParamsResolution = { ok: true; value: JobParams } | { ok: false; details: ErrorDetail[] }

/**
 * Lays `over` on top of `base` (a preset's values under a set's own). Reports a `primary`
 * that the merged variations do not contain.
 */
export function mergeValues(base: ParamValues, over: ParamValues): { values: ParamValues; details: ErrorDetail[] } {
  const values: ParamValues = { ...base, ...over }
  const details: ErrorDetail[] = []
  checkSet(values, details)
  return { values, details }
}

/** Looks a preset up by name: its values, or null when there is no such preset. */
export type PresetLookup = (name: string) => ParamValues | null

/**
 * The full parameter set of a job: the mode's defaults, then the preset's values, then the
 * set's own keys (docs/params.md).
 *
 * - `variations`: the set's, else the preset's, else the mode's defaults; for `background`
 *   and `params` the defaults leave out `shadowTop` when `shadow=none`.
 * - `primary`: the set's own `primary` must be among the variations; otherwise the preset's
 *   when it is among them, else `shadowTop` when the set asks for `shadow=top` (the main file
 *   shows what was asked for), else the mode's (`clipping` / `compose`), else the first
 *   variation.
 * - with an explicit `mode=clipping`, keys that cannot apply are refused (`params-mode.ts`).
 * - a margin must leave room inside a `<W>x<H>` or `<max>` canvas, on each axis.
 */
export function resolveParams(mode: Mode, set: ParamSet | null, lookup: PresetLookup): ParamsResolution {
  const base = MODE_DEFAULTS[mode]
  const details: ErrorDetail[] = []
  let preset: ParamValues = {}
  if (set?.preset) {
    const found = lookup(set.preset)
    if (found) preset = found
    else details.push({ field: 'params.preset', issue: `no preset named "${set.preset}"` })
  }
  const own = set?.values ?? {}
  const merged: JobParams = { ...base, ...preset, ...own, preset: set?.preset ?? null }

  let variations = own.variations ?? preset.variations
  if (!variations) {
    variations = mode !== 'clipping' && merged.shadow === 'none' ? base.variations.filter((v) => v !== 'shadowTop') : base.variations
  }
  merged.variations = [...variations]

  if (own.primary && !variations.includes(own.primary)) {
    details.push({ field: 'params.primary', issue: `"${own.primary}" is not among the variations made (${variations.join(', ')})` })
  }
  details.push(...modeConflicts(mode, own, preset, set?.preset ?? null))
  // A set that asks for a shadow and names no main file gets the shadow in its main file.
  const asksShadow: Variation | undefined = (own.shadow ?? preset.shadow) === 'top' ? 'shadowTop' : undefined
  const candidates = [own.primary, preset.primary, asksShadow, base.primary]
  merged.primary = candidates.find((v): v is Variation => v !== undefined && variations.includes(v)) ?? variations[0]!

  const tight = marginRoomProblem(merged.margin, merged.size)
  if (tight)
    details.push({
      field: 'params.margin',
      issue: `${formatValue('margin', merged.margin)} ${tight} in size=${formatValue('size', merged.size)}`
    })
  return details.length > 0 ? { ok: false, details } : { ok: true, value: merged }
}
