/**
 * A parameter set written back in its inline form (docs/params.md "Parameter sets"): what
 * `parseParams` (`params.ts`) reads back to the same values. Presets are stored, shown and
 * named in this form. No Node, no DOM here.
 */
import type { Variation } from './api'
import { PARAM_KEYS, type ParamKey, type ParamValues } from './params-keys'
import type { BackgroundSpec, JobParams, MarginSpec, SizeSpec } from './params-types'

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
