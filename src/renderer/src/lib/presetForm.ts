/**
 * The preset form (docs/params.md keys) and its inline parameter string. Every key may be left
 * unset ('' / []), which keeps the mode's default. Checked with the shared grammar, so the
 * form names the same problems the engine would.
 */
import type { Variation } from '../../../shared/api'
import { parseParams } from '../../../shared/params'
import { formatValue } from '../../../shared/params-format'
import type { ParamValues } from '../../../shared/params-keys'
import type { PositionSpec } from '../../../shared/params-types'

export interface PresetForm {
  name: string
  description: string
  background: '' | 'transparent' | 'color' | 'blur'
  color: string
  /** Blur radius in px; '' for the default. */
  blur: string
  shadow: '' | 'none' | 'top'
  crop: '' | 'none' | 'subject'
  size: '' | 'original' | 'box' | 'long'
  width: string
  height: string
  longEdge: string
  /** One number, or four separated by commas (top, right, bottom, left); a part without a unit takes `marginUnit`. */
  margin: string
  marginUnit: '%' | 'px'
  position: '' | PositionSpec
  /** `allow`, `never`, or a limit a preset came with (`2x,1000`), kept as it is. */
  upscale: '' | NonNullable<ParamValues['upscale']>
  variations: Variation[]
  primary: '' | Variation
  quality: string
  refine: '' | 'none' | 'edges' | 'detail'
  look: '' | 'auto' | 'off' | 'always'
  alpha: '' | 'auto' | 'keep'
  metadata: '' | 'keep' | 'keep-gps' | 'strip'
  /** The file format a preset writes when the job names none (a store preset's `jpg`), kept as it came. */
  format: '' | NonNullable<ParamValues['format']>
}

export const EMPTY_FORM: PresetForm = {
  name: '',
  description: '',
  background: '',
  color: '#FFFFFF',
  blur: '',
  shadow: '',
  crop: '',
  size: '',
  width: '2000',
  height: '2000',
  longEdge: '2000',
  margin: '',
  marginUnit: '%',
  position: '',
  upscale: '',
  variations: [],
  primary: '',
  quality: '',
  refine: '',
  look: '',
  alpha: '',
  metadata: '',
  format: ''
}

/** A preset's typed values → the form. */
export function formFromValues(name: string, description: string | null, v: ParamValues): PresetForm {
  const f: PresetForm = { ...EMPTY_FORM, name, description: description ?? '' }
  if (v.background) {
    f.background = v.background.kind
    if (v.background.kind === 'color') f.color = formatValue('background', v.background)
    if (v.background.kind === 'blur')
      f.blur = v.background.radius === null || v.background.radius === undefined ? '' : String(v.background.radius)
  }
  if (v.shadow) f.shadow = v.shadow
  if (v.crop) f.crop = v.crop
  if (v.size) {
    f.size = v.size.kind
    if (v.size.kind === 'box') {
      f.width = String(v.size.width)
      f.height = String(v.size.height)
    }
    if (v.size.kind === 'long') f.longEdge = String(v.size.max)
  }
  if (v.margin) {
    const sides = Array.isArray(v.margin) ? v.margin : [v.margin]
    const unit = sides[0]!.unit
    const oneUnit = sides.every((m) => m.unit === unit)
    f.margin = oneUnit ? sides.map((m) => String(m.value)).join(',') : formatValue('margin', v.margin)
    f.marginUnit = unit
  }
  if (v.position) f.position = v.position
  if (v.upscale) f.upscale = v.upscale
  if (v.variations) f.variations = [...v.variations]
  if (v.primary) f.primary = v.primary
  if (v.quality !== undefined && v.quality !== null) f.quality = String(v.quality)
  if (v.refine) f.refine = v.refine
  if (v.look) f.look = v.look
  if (v.alpha) f.alpha = v.alpha
  if (v.metadata) f.metadata = v.metadata
  if (v.format) f.format = v.format
  return f
}

/** The form's keys as an inline parameter string (`background=#FFFFFF;size=2000x2000;…`). */
export function paramsOfForm(f: PresetForm): string {
  const parts: string[] = []
  const put = (key: string, value: string): void => {
    if (value !== '') parts.push(`${key}=${value.trim()}`)
  }
  if (f.background === 'transparent') put('background', 'transparent')
  if (f.background === 'color') put('background', f.color)
  if (f.background === 'blur') put('background', f.blur.trim() ? `blur:${f.blur.trim()}` : 'blur')
  put('shadow', f.shadow)
  put('crop', f.crop)
  if (f.size === 'original') put('size', 'original')
  if (f.size === 'box') put('size', `${f.width.trim()}x${f.height.trim()}`)
  if (f.size === 'long') put('size', f.longEdge)
  if (f.margin.trim() !== '') {
    const withUnit = (part: string): string => (part.endsWith('%') || part.endsWith('px') || part === '' ? part : `${part}${f.marginUnit}`)
    put(
      'margin',
      f.margin
        .split(',')
        .map((part) => withUnit(part.trim()))
        .join(',')
    )
  }
  put('position', f.position)
  put('upscale', f.upscale)
  if (f.variations.length > 0) put('variations', f.variations.join(','))
  put('primary', f.primary)
  put('quality', f.quality)
  put('refine', f.refine)
  put('look', f.look)
  put('alpha', f.alpha)
  put('metadata', f.metadata)
  put('format', f.format)
  return parts.join(';')
}

/** Problems of the form, by key (`size`, `margin`, … or `params` for the whole set). */
export function checkForm(f: PresetForm): Record<string, string> {
  const params = paramsOfForm(f)
  if (params === '') return {}
  const r = parseParams(params)
  if (r.ok) return {}
  const out: Record<string, string> = {}
  for (const d of r.details) out[d.field.replace(/^params\.?/, '') || 'params'] = d.issue
  return out
}
