/**
 * The grammar of parameter sets (docs/params.md "Parameter sets"), shared by every process: the
 * engine checks uploads and presets with it, the renderer can check a form as the user types.
 *
 * Three forms, all parsed into one `ParamSet` (its keys and limits in `params-keys.ts`):
 *   1. a preset name                      `ecommerce-white`
 *   2. inline pairs, optionally led by a preset name, joined by `;` or `&`
 *                                         `ecommerce-white;size=1600x1600;margin=6%`
 *   3. a JSON object with the same keys, values typed (also when it comes as a string, as it
 *      always does in multipart)            `{"preset":"ecommerce-white","size":1600,"quality":85}`
 *
 * Only the grammar is checked here: `resolveParams` (`params-layers.ts`) then lays mode
 * defaults, the preset and the set's own keys on top of each other. Every problem is reported
 * as a detail whose field names the key (`params.<key>`), all of them at once. No Node, no DOM
 * here.
 */
import { z } from 'zod'
import { OUTPUT_FORMATS, VARIATIONS, type Variation } from './api'
import type { ErrorDetail } from './errors'
import { COLOUR_NAMES } from './colours'
import { MODEL_NAME_PATTERN } from './models'
import { readMargin, readPosition } from './params-framing'
import {
  checkSet,
  MAX_BLUR_RADIUS,
  MAX_OUTPUT_SIDE,
  MAX_PARAMS_LENGTH,
  PARAM_EXPECTED,
  PARAM_KEYS,
  PRESET_NAME_PATTERN,
  type ParamKey,
  type ParamSet,
  type ParamValues
} from './params-keys'
import { SECOND_LOOK_SETTINGS, type BackgroundSpec, type JobParams, type MarginSpec, type SizeSpec } from './params-types'

/** A failed parse keeps what did parse (`partial`), so that later checks can still report their own problems. */
export type ParamsParse = { ok: true; value: ParamSet } | { ok: false; details: ErrorDetail[]; partial?: ParamSet }

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
