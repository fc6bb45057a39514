/**
 * The grammar of parameter sets (docs/params.md "Parameter sets"), shared by every process: the
 * engine checks uploads and presets with it, the renderer can check a form as the user types.
 *
 * Three forms, all parsed into one `ParamSet`:
 *   1. a preset name                      `ecommerce-white`
 *   2. inline pairs, optionally led by a preset name, joined by `;` or `&`
 *                                         `ecommerce-white;size=1600x1600;margin=6%`
 *   3. a JSON object with the same keys, values typed (also when it comes as a string, as it
 *      always does in multipart)            `{"preset":"ecommerce-white","size":1600,"quality":85}`
 *
 * `resolveParams` then lays mode defaults, the preset and the set's own keys on top of each
 * other into the full `JobParams`. Every problem is reported as a detail whose field names the
 * key (`params.<key>`), all of them at once. No Node, no DOM here.
 */
import { z } from 'zod'
import { OUTPUT_FORMATS, VARIATIONS, type Mode, type Variation } from './api'
import type { ErrorDetail } from './errors'
import { COLOUR_NAMES } from './colours'
import { MODEL_NAME_PATTERN } from './models'
import { marginRoomProblem, MAX_MARGIN_PX, MARGIN_PERCENT_LIMIT, readMargin, readPosition } from './params-framing'
import { modeConflicts } from './params-mode'
import {
  MODE_DEFAULTS,
  SECOND_LOOK_SETTINGS,
  UPSCALE_WARN_FACTOR,
  type BackgroundSpec,
  type JobParams,
  type MarginSpec,
  type SizeSpec
} from './params-types'

export { COLOUR_NAMES } from './colours'
export { MAX_MARGIN_PX, MARGIN_PERCENT_LIMIT } from './params-framing'
export { jobMode } from './params-mode'

/** Longest accepted `params` string (docs/params.md, docs/api.md limits). */
export const MAX_PARAMS_LENGTH = 2048
/** Largest output side (`size=<W>x<H>` or `size=<max>`), in pixels. */
export const MAX_OUTPUT_SIDE = 10_000
/** Largest `blur:<px>` radius. */
export const MAX_BLUR_RADIUS = 250

/** A preset's name: also what makes a `params` string a preset reference. */
export const PRESET_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/

/** Every key a parameter set may carry, in the order `formatParams` writes them. */
export const PARAM_KEYS = [
  'background',
  'shadow',
  'crop',
  'size',
  'margin',
  'position',
  'upscale',
  'variations',
  'primary',
  'quality',
  'refine',
  'look',
  'alpha',
  'model',
  'metadata',
  'format'
] as const
export type ParamKey = (typeof PARAM_KEYS)[number]

/** The values a set gives (any subset of the keys). */
export type ParamValues = Partial<Pick<JobParams, ParamKey>>

/** A parsed parameter set: the preset it starts from (if any) and its own keys. */
export interface ParamSet {
  preset: string | null
  values: ParamValues
}

/** A failed parse keeps what did parse (`partial`), so that later checks can still report their own problems. */
export type ParamsParse = { ok: true; value: ParamSet } | { ok: false; details: ErrorDetail[]; partial?: ParamSet }
export type ParamsResolution = { ok: true; value: JobParams } | { ok: false; details: ErrorDetail[] }

/** What each key accepts, as said in error messages and docs. */
export const PARAM_EXPECTED: Record<ParamKey, string> = {
  background: `transparent, a colour name (white, black, grey, beige…), #RGB, #RGBA, #RRGGBB, #RRGGBBAA, blur or blur:<px> (1–${MAX_BLUR_RADIUS})`,
  shadow: 'none or top',
  crop: 'none or subject',
  size: `original, <W>x<H> or <max> (whole numbers from 1 to ${MAX_OUTPUT_SIDE})`,
  margin: `<n>% (0 to under ${MARGIN_PERCENT_LIMIT}) or <n>px (0 to ${MAX_MARGIN_PX}), or four of them for top,right,bottom,left (4%,6%,8%,6%)`,
  position: 'center, top, bottom, left, right, or <x>,<y> (x: left, center, right; y: top, center, bottom)',
  upscale: `allow (enlarged to fit, said in warnings beyond ${UPSCALE_WARN_FACTOR}×), never (kept at the photo's own size), or <f>x[,<px>] (at most f× (1–10): the canvas shrinks to keep to it, not under <px> on its long edge)`,
  variations: `a comma-separated list of ${VARIATIONS.join(', ')} (each at most once)`,
  primary: `one of ${VARIATIONS.join(', ')}`,
  quality: 'a whole number from 1 to 100',
  refine: 'none, edges or detail',
  look: 'auto (a second look where the first is doubtful), off or always',
  alpha: 'auto or keep',
  model: 'a model name from the model registry (clipdesk models list), e.g. medium',
  metadata: 'keep, keep-gps or strip',
  format: `the file format when the request names none: ${OUTPUT_FORMATS.join(', ')}`
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return `a ${typeof value}`
}

type Ctx = z.core.$RefinementCtx<unknown>
/** An issue without words of its own: the key's `PARAM_EXPECTED` is said instead (zod would say "Invalid input"). */
const SAY_EXPECTED = 'say-expected'
function issue(ctx: Ctx, message: string): never {
  ctx.issues.push({ code: 'custom', message: message || SAY_EXPECTED, input: undefined })
  return z.NEVER as never
}

const HEX_COLOR = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i

const WHOLE = /^\d+$/
const isWhole = (n: number, min: number, max: number): boolean => Number.isInteger(n) && n >= min && n <= max

function hexToRgba(hex: string): [number, number, number, number] {
  let h = hex.slice(1)
  if (h.length <= 4) h = [...h].map((c) => c + c).join('')
  if (h.length === 6) h += 'ff'
  return [0, 2, 4, 6].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number, number]
}

/**
 * One zod schema per key. Inline values arrive as strings; JSON values may also be typed
 * (numbers, arrays). A failed check reports `PARAM_EXPECTED[key]` unless it says something
 * more precise.
 */
const SCHEMAS: { [K in ParamKey]: z.ZodType<NonNullable<JobParams[K]>, unknown> } = {
  background: z
    .string()
    .trim()
    .transform((s, ctx): BackgroundSpec => {
      if (s === 'transparent') return { kind: 'transparent' }
      if (HEX_COLOR.test(s)) return { kind: 'color', rgba: hexToRgba(s) }
      const named = Object.hasOwn(COLOUR_NAMES, s.toLowerCase()) ? COLOUR_NAMES[s.toLowerCase()] : undefined
      if (named) return { kind: 'color', rgba: hexToRgba(named) }
      const blur = /^blur(?::(.*))?$/.exec(s)
      if (!blur) return issue(ctx, '')
      if (blur[1] === undefined) return { kind: 'blur', radius: null }
      const r = Number(blur[1])
      if (!WHOLE.test(blur[1]) || !isWhole(r, 1, MAX_BLUR_RADIUS)) {
        return issue(ctx, `blur radius must be a whole number of pixels from 1 to ${MAX_BLUR_RADIUS}, got ${describe(blur[1])}`)
      }
      return { kind: 'blur', radius: r }
    }),
  shadow: z.enum(['none', 'top']),
  crop: z.enum(['none', 'subject']),
  size: z.union([z.number(), z.string().trim()]).transform((v, ctx): SizeSpec => {
    if (v === 'original') return { kind: 'original' }
    const limit = `sizes are whole numbers from 1 to ${MAX_OUTPUT_SIDE}`
    if (typeof v === 'number') return isWhole(v, 1, MAX_OUTPUT_SIDE) ? { kind: 'long', max: v } : issue(ctx, `${limit}, got ${v}`)
    const box = /^(\d+)[xX](\d+)$/.exec(v)
    if (box) {
      const [width, height] = [Number(box[1]), Number(box[2])]
      if (!isWhole(width, 1, MAX_OUTPUT_SIDE) || !isWhole(height, 1, MAX_OUTPUT_SIDE)) return issue(ctx, `${limit}, got ${describe(v)}`)
      return { kind: 'box', width, height }
    }
    if (WHOLE.test(v)) {
      const max = Number(v)
      return isWhole(max, 1, MAX_OUTPUT_SIDE) ? { kind: 'long', max } : issue(ctx, `${limit}, got ${describe(v)}`)
    }
    return issue(ctx, '')
  }),
  margin: z.union([z.number(), z.string(), z.array(z.union([z.number(), z.string()]))]).transform((v, ctx): MarginSpec => {
    const r = readMargin(v)
    return r.ok ? r.value : issue(ctx, r.issue ?? '')
  }),
  position: z.string().transform((v, ctx): JobParams['position'] => {
    const r = readPosition(v)
    return r.ok ? r.value : issue(ctx, r.issue ?? '')
  }),
  upscale: z.union([z.number(), z.string().trim()]).transform((v, ctx): NonNullable<JobParams['upscale']> => {
    if (v === 'allow' || v === 'never') return v
    // `2x`, `1.5x`, `2x,1000`: anchored, no nested repetition.
    const m = typeof v === 'string' ? /^(\d{1,2}(?:\.\d{1,2})?)x(?:,(\d{1,5}))?$/.exec(v) : null
    if (!m) return issue(ctx, '')
    const factor = Number(m[1])
    const floor = m[2] === undefined ? null : Number(m[2])
    if (factor < 1 || factor > 10) return issue(ctx, `the most a photo may be enlarged is from 1x to 10x, got ${describe(v)}`)
    if (floor !== null && !isWhole(floor, 1, MAX_OUTPUT_SIDE))
      return issue(ctx, `the smallest canvas is a whole number of pixels from 1 to ${MAX_OUTPUT_SIDE}, got ${describe(v)}`)
    return floor === null ? `${factor}x` : `${factor}x,${floor}`
  }),
  variations: z.union([z.array(z.string()), z.string()]).transform((v, ctx): Variation[] => {
    const names = (typeof v === 'string' ? v.split(',') : v).map((n) => n.trim())
    if (names.length === 0 || names.every((n) => n === '')) return issue(ctx, 'name at least one variation')
    const unknown = names.filter((n) => !(VARIATIONS as readonly string[]).includes(n))
    if (unknown.length > 0) {
      return issue(ctx, `unknown variation ${unknown.map((n) => describe(n)).join(', ')}; expected ${VARIATIONS.join(', ')}`)
    }
    const twice = names.filter((n, i) => names.indexOf(n) !== i)
    if (twice.length > 0) return issue(ctx, `lists ${[...new Set(twice)].join(', ')} more than once`)
    return names as Variation[]
  }),
  primary: z.enum(VARIATIONS),
  quality: z.union([z.number(), z.string().trim().regex(WHOLE).transform(Number)]).pipe(z.number().int().min(1).max(100)),
  refine: z.enum(['none', 'edges', 'detail']),
  look: z.enum(SECOND_LOOK_SETTINGS),
  alpha: z.enum(['auto', 'keep']),
  // Only the name's form is checked here; whether the model exists is the engine's question.
  model: z.string().trim().regex(MODEL_NAME_PATTERN),
  metadata: z.enum(['keep', 'keep-gps', 'strip']),
  format: z.enum(OUTPUT_FORMATS)
}

const isParamKey = (k: string): k is ParamKey => (PARAM_KEYS as readonly string[]).includes(k)

/** Checks one key's value; adds a detail naming the key when it is bad. */
function parseValue(key: ParamKey, raw: unknown, values: ParamValues, details: ErrorDetail[]): void {
  const r = SCHEMAS[key].safeParse(raw)
  if (r.success) {
    ;(values as Record<ParamKey, unknown>)[key] = r.data
    return
  }
  const custom = r.error.issues.find((i) => i.code === 'custom' && i.message && i.message !== SAY_EXPECTED)?.message
  details.push({ field: `params.${key}`, issue: custom ?? `expected ${PARAM_EXPECTED[key]}, got ${describe(raw)}` })
}

function unknownKey(key: string): ErrorDetail {
  return { field: `params.${key}`, issue: `unknown key; expected one of ${PARAM_KEYS.join(', ')}` }
}

function checkPresetName(name: unknown, details: ErrorDetail[]): string | null {
  if (typeof name === 'string' && PRESET_NAME_PATTERN.test(name)) return name
  details.push({
    field: 'params.preset',
    issue: `a preset name is 1–64 characters of a-z, 0-9, "_" and "-", starting with a letter or digit; got ${describe(name)}`
  })
  return null
}

/** Keys within one set that contradict each other. */
function checkSet(values: ParamValues, details: ErrorDetail[]): void {
  if (values.primary && values.variations && !values.variations.includes(values.primary)) {
    details.push({ field: 'params.primary', issue: `"${values.primary}" is not among the variations (${values.variations.join(', ')})` })
  }
}

function parseObject(obj: Record<string, unknown>): ParamsParse {
  const details: ErrorDetail[] = []
  const values: ParamValues = {}
  let preset: string | null = null
  for (const [key, raw] of Object.entries(obj)) {
    if (raw === null || raw === undefined) continue // "not given", as for upload fields
    if (key === 'preset') preset = checkPresetName(raw, details)
    else if (isParamKey(key)) parseValue(key, raw, values, details)
    else details.push(unknownKey(key))
  }
  checkSet(values, details)
  return details.length > 0 ? { ok: false, details, partial: { preset, values } } : { ok: true, value: { preset, values } }
}

function parseInline(text: string): ParamsParse {
  const details: ErrorDetail[] = []
  const values: ParamValues = {}
  let preset: string | null = null
  const seen = new Set<string>()
  const segments = text.split(/[;&]/).map((s) => s.trim())
  segments.forEach((segment, index) => {
    if (segment === '') return // "a=b;" and "a=b;;c=d" are forgiven
    const eq = segment.indexOf('=')
    if (eq < 0) {
      if (index === 0) preset = checkPresetName(segment, details)
      else
        details.push({ field: 'params', issue: `${describe(segment)} is not a key=value pair (only the first part may be a preset name)` })
      return
    }
    const key = segment.slice(0, eq).trim()
    const value = segment.slice(eq + 1).trim()
    if (!isParamKey(key)) {
      details.push(key === '' ? { field: 'params', issue: `${describe(segment)} has no key` } : unknownKey(key))
      return
    }
    if (seen.has(key)) {
      details.push({ field: `params.${key}`, issue: 'given more than once' })
      return
    }
    seen.add(key)
    parseValue(key, value, values, details)
  })
  checkSet(values, details)
  return details.length > 0 ? { ok: false, details, partial: { preset, values } } : { ok: true, value: { preset, values } }
}

/**
 * Parses a parameter set in any of its forms. Only the grammar is checked here; whether a
 * named preset exists is for `resolveParams`.
 */
export function parseParams(input: unknown): ParamsParse {
  if (typeof input === 'string') {
    if (input.length > MAX_PARAMS_LENGTH) {
      return { ok: false, details: [{ field: 'params', issue: `longer than ${MAX_PARAMS_LENGTH} characters (${input.length})` }] }
    }
    const text = input.trim()
    if (text === '') return { ok: false, details: [{ field: 'params', issue: 'empty' }] }
    if (text.startsWith('{')) {
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch (err) {
        return { ok: false, details: [{ field: 'params', issue: `not valid JSON: ${(err as Error).message}` }] }
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        return { ok: false, details: [{ field: 'params', issue: 'expected a JSON object' }] }
      }
      return parseObject(parsed as Record<string, unknown>)
    }
    return parseInline(text)
  }
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) return parseObject(input as Record<string, unknown>)
  return { ok: false, details: [{ field: 'params', issue: `expected a string or an object, got ${describe(input)}` }] }
}

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

/** One value in its inline form (what `parseParams` reads back to the same value). */
export function formatValue<K extends ParamKey>(key: K, value: NonNullable<JobParams[K]>): string {
  switch (key) {
    case 'background': {
      const bg = value as BackgroundSpec
      if (bg.kind === 'transparent') return 'transparent'
      if (bg.kind === 'blur') return bg.radius === null ? 'blur' : `blur:${bg.radius}`
      const [r, g, b, a] = bg.rgba
      const hex = (n: number) => n.toString(16).padStart(2, '0').toUpperCase()
      return `#${hex(r)}${hex(g)}${hex(b)}${a === 255 ? '' : hex(a)}`
    }
    case 'size': {
      const size = value as SizeSpec
      return size.kind === 'original' ? 'original' : size.kind === 'box' ? `${size.width}x${size.height}` : String(size.max)
    }
    case 'margin': {
      const m = value as MarginSpec
      return (Array.isArray(m) ? m : [m]).map((side) => `${side.value}${side.unit}`).join(',')
    }
    case 'variations':
      return (value as Variation[]).join(',')
    default:
      return String(value)
  }
}

/** A set in its canonical inline form, e.g. `ecommerce-white;size=1600x1600;margin=6%`. */
export function formatParams(values: ParamValues, preset: string | null = null): string {
  const parts = preset ? [preset] : []
  for (const key of PARAM_KEYS) {
    const v = values[key]
    if (v !== undefined) parts.push(`${key}=${formatValue(key, v as NonNullable<JobParams[typeof key]>)}`)
  }
  return parts.join(';')
}
