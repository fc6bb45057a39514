/**
 * The fields of `POST /v1.0/removebg` as remove.bg's API v1.0 documents them, checked with zod
 * into one `RemoveBgRequest`. Values come as strings (multipart, form-urlencoded) or typed (JSON).
 * Every problem is reported at once, each naming its field; a value remove.bg takes that this
 * product cannot honour is refused (`unsupported_option`), never dropped (docs/api.md
 * "remove.bg compatibility").
 */
import { z } from 'zod'
import { COLOUR_NAMES } from '../../../shared/colours'
import { RemoveBgError, type RemoveBgErrorItem } from './errors'

/** Output size caps in pixels by `size` value (null: the product's own limits). */
export const SIZE_CAPS: Readonly<Record<string, number | null>> = {
  preview: 250_000,
  small: 250_000,
  regular: 250_000,
  medium: 1_500_000,
  hd: 4_000_000,
  full: 25_000_000,
  '4k': 25_000_000,
  '50MP': 50_000_000,
  auto: null
}

export const TYPES = ['auto', 'person', 'product', 'car', 'animal', 'graphic', 'transportation'] as const
export const FORMATS = ['auto', 'png', 'jpg', 'webp', 'zip'] as const
export const SHADOW_TYPES = ['none', 'auto', 'car', '3D', 'drop'] as const

/** Every field the endpoint reads; anything else is refused (`unknown_parameter`). */
export const FIELDS = [
  'image_file',
  'image_file_b64',
  'image_url',
  'size',
  'type',
  'type_level',
  'format',
  'roi',
  'crop',
  'crop_margin',
  'scale',
  'position',
  'channels',
  'bg_color',
  'bg_image_url',
  'bg_image_file',
  'shadow_type',
  'shadow_opacity',
  'add_shadow',
  'semitransparency'
] as const

/** A length in pixels or in percent. */
export interface Length {
  value: number
  unit: 'px' | '%'
}

export interface RemoveBgOptions {
  /** The `size` as given (for X-headers and docs) and its pixel cap. */
  size: string
  cap: number | null
  type: (typeof TYPES)[number]
  format: (typeof FORMATS)[number]
  /** x1 y1 x2 y2; null: the whole image. */
  roi: [Length, Length, Length, Length] | null
  crop: boolean
  /** One margin for every side (remove.bg's percent is of the subject's size). */
  cropMargin: Length | null
  /** The subject's share of the canvas in percent; null: `original`. */
  scale: number | null
  position: 'original' | 'center' | 'bottom'
  channels: 'rgba' | 'alpha'
  /** `#RRGGBB` or `#RRGGBBAA`; null: transparent. */
  bgColor: string | null
  bgImageUrl: string | null
  shadow: boolean
}

const text = z.union([z.string(), z.number()]).transform((v) => String(v).trim())
const bool = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((v) => v === true || v === 'true' || v === '1')

/** `30px`, `10%`, `0` or a bare number of pixels. */
function parseLength(raw: string): Length | null {
  const m = /^(\d{1,6}(?:\.\d{1,4})?)(px|%)?$/.exec(raw)
  if (!m) return null
  return { value: Number(m[1]), unit: m[2] === '%' ? '%' : 'px' }
}

const HEX = /^#?([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i

/** A remove.bg colour (hex with or without `#`, 3/4/6/8 digits, or a name) as `#RRGGBB[AA]`; null when it is none of them. */
export function parseColour(raw: string): string | null {
  const named = Object.hasOwn(COLOUR_NAMES, raw.toLowerCase()) ? COLOUR_NAMES[raw.toLowerCase()] : undefined
  if (named) return named
  const m = HEX.exec(raw)
  if (!m) return null
  const h = m[1]!.length <= 4 ? [...m[1]!].map((c) => c + c).join('') : m[1]!
  return `#${h.toUpperCase()}`
}

type Raw = Record<string, unknown>

class Problems {
  readonly items: RemoveBgErrorItem[] = []
  invalid(field: string, detail: string, code = `invalid_${field}`): void {
    this.items.push({ title: 'Invalid parameters', code, detail: `${field}: ${detail}` })
  }
  unsupported(field: string, detail: string): void {
    this.items.push({ title: 'Unsupported option', code: 'unsupported_option', detail: `${field}: ${detail}` })
  }
}

/** A field's value through `schema`, or undefined (and a problem) when absent or bad. */
function read<T>(raw: Raw, field: string, schema: z.ZodType<T, unknown>, problems: Problems, expected: string): T | undefined {
  const v = raw[field]
  if (v === undefined || v === null || v === '') return undefined
  const r = schema.safeParse(v)
  if (r.success) return r.data
  problems.invalid(field, `expected ${expected}`)
  return undefined
}

function parseRoi(raw: string, problems: Problems): RemoveBgOptions['roi'] {
  const parts = raw.split(/\s+/)
  const lengths = parts.map(parseLength)
  if (parts.length !== 4 || lengths.some((l) => l === null)) {
    problems.invalid('roi', 'expected four lengths "x1 y1 x2 y2", each in px or %, e.g. "0% 0% 100% 100%"')
    return null
  }
  const [x1, y1, x2, y2] = lengths as [Length, Length, Length, Length]
  const whole = [x1, y1].every((l) => l.value === 0) && [x2, y2].every((l) => l.unit === '%' && l.value === 100)
  return whole ? null : [x1, y1, x2, y2]
}

function parseCropMargin(raw: string, problems: Problems): Length | null {
  const parts = raw.split(/\s+/)
  const lengths = parts.map(parseLength)
  if (![1, 2, 4].includes(parts.length) || lengths.some((l) => l === null)) {
    problems.invalid('crop_margin', 'expected 1, 2 or 4 lengths in px or %, e.g. "30px" or "10%"')
    return null
  }
  const first = lengths[0]!
  if (lengths.some((l) => l!.value !== first.value || l!.unit !== first.unit)) {
    problems.unsupported('crop_margin', 'one margin for all four sides is supported here; give a single value')
    return null
  }
  if ((first.unit === '%' && first.value > 50) || (first.unit === 'px' && first.value > 500)) {
    problems.invalid('crop_margin', "at most 50% of the subject's size or 500px")
    return null
  }
  return first.value === 0 ? null : first
}

function parsePosition(raw: string, problems: Problems): RemoveBgOptions['position'] | undefined {
  if (raw === 'original' || raw === 'center') return raw
  const parts = raw.split(/\s+/).map(parseLength)
  if (parts.length > 2 || parts.some((p) => p === null || p.unit !== '%' || p.value > 100)) {
    problems.invalid('position', 'expected original, center, or "x% y%" (one value for both)')
    return undefined
  }
  const [x, y] = [parts[0]!.value, (parts[1] ?? parts[0]!).value]
  if (x === 50 && y === 50) return 'center'
  if (x === 50 && y === 100) return 'bottom'
  problems.unsupported('position', 'the subject can be centred ("center", "50%") or centred on the bottom edge ("50% 100%") here')
  return undefined
}

/**
 * The options of a request (the image itself is taken apart, `source.ts`). Throws one 400
 * `RemoveBgError` listing every problem.
 */
export function parseOptions(raw: Raw, hasBgImageFile: boolean): RemoveBgOptions {
  const problems = new Problems()
  for (const key of Object.keys(raw)) {
    if (!(FIELDS as readonly string[]).includes(key))
      problems.items.push({ title: 'Invalid parameters', code: 'unknown_parameter', detail: `${key}: not a parameter of /v1.0/removebg` })
  }
  const size =
    read(
      raw,
      'size',
      text.pipe(z.enum(Object.keys(SIZE_CAPS) as [string, ...string[]])),
      problems,
      `one of ${Object.keys(SIZE_CAPS).join(', ')}`
    ) ?? 'preview'
  const type = read(raw, 'type', text.pipe(z.enum(TYPES)), problems, TYPES.join(', ')) ?? 'auto'
  read(raw, 'type_level', text.pipe(z.enum(['none', '1', '2', 'latest'])), problems, 'none, 1, 2 or latest')
  const format = read(raw, 'format', text.pipe(z.enum(FORMATS)), problems, FORMATS.join(', ')) ?? 'auto'
  const roiText = read(raw, 'roi', text, problems, 'four lengths')
  const roi = roiText === undefined ? null : parseRoi(roiText, problems)
  const crop = read(raw, 'crop', bool, problems, 'true or false') ?? false
  const marginText = read(raw, 'crop_margin', text, problems, 'a length')
  const cropMargin = marginText === undefined ? null : parseCropMargin(marginText, problems)
  if (cropMargin && !crop) problems.invalid('crop_margin', 'a margin is added around the cropped subject: send crop=true with it')

  const scaleText = read(raw, 'scale', text, problems, 'original or 10% to 100%')
  let scale: number | null = null
  if (scaleText !== undefined && scaleText !== 'original') {
    const l = parseLength(scaleText)
    if (l?.unit !== '%' || l.value < 10 || l.value > 100) problems.invalid('scale', 'expected original or a percentage from 10% to 100%')
    else scale = l.value
  }
  const positionText = read(raw, 'position', text, problems, 'original, center or "x% y%"')
  let position =
    positionText === undefined ? (scale !== null ? 'center' : 'original') : (parsePosition(positionText, problems) ?? 'original')
  if (positionText === 'original' && scale !== null) {
    problems.unsupported(
      'position',
      'a scaled subject is centred ("center") or centred on the bottom edge ("50% 100%") here, not kept where it was'
    )
  }
  if (position !== 'original' && scale === null) {
    problems.unsupported('position', 'moving the subject without scaling it is not supported here; give scale (e.g. 100%) with position')
    position = 'original'
  }
  if (crop && scale !== null) problems.unsupported('scale', 'crop=true and scale together are not supported here; use one of them')

  const channels = read(raw, 'channels', text.pipe(z.enum(['rgba', 'alpha'])), problems, 'rgba or alpha') ?? 'rgba'
  const colourText = read(raw, 'bg_color', text, problems, 'a hex colour or a colour name')
  let bgColor: string | null = null
  if (colourText !== undefined) {
    bgColor = parseColour(colourText)
    if (!bgColor)
      problems.invalid('bg_color', `expected a hex colour (81d4fa, fff, 81d4fa77) or one of ${Object.keys(COLOUR_NAMES).join(', ')}`)
  }
  const bgImageUrl = read(raw, 'bg_image_url', text, problems, 'an http(s) URL') ?? null
  const bgImage = bgImageUrl !== null || hasBgImageFile
  if (bgImageUrl !== null && hasBgImageFile)
    problems.invalid('bg_image_url', 'give bg_image_url or bg_image_file, not both', 'multiple_bg_sources')
  if (bgImage && bgColor) problems.invalid('bg_color', 'give bg_color or a background image, not both', 'multiple_bg_sources')

  const shadowType = read(raw, 'shadow_type', text.pipe(z.enum(SHADOW_TYPES)), problems, SHADOW_TYPES.join(', '))
  const addShadow = read(raw, 'add_shadow', bool, problems, 'true or false')
  const shadow = shadowType !== undefined ? shadowType !== 'none' : addShadow === true
  if (shadowType !== undefined && addShadow !== undefined && addShadow !== (shadowType !== 'none')) {
    problems.invalid('add_shadow', 'contradicts shadow_type; send shadow_type alone (add_shadow is its older form)')
  }
  if (
    read(
      raw,
      'shadow_opacity',
      z
        .union([
          z.number(),
          z
            .string()
            .regex(/^\d{1,3}$/)
            .transform(Number)
        ])
        .pipe(z.number().int().min(0).max(100)),
      problems,
      'a whole number from 0 to 100'
    ) !== undefined
  ) {
    problems.unsupported('shadow_opacity', 'the contact shadow has one strength here; leave shadow_opacity out')
  }
  if (shadow && bgImage) problems.unsupported('shadow_type', 'a shadow over a background image is not supported here')
  if (read(raw, 'semitransparency', bool, problems, 'true or false') === false) {
    problems.unsupported(
      'semitransparency',
      'edges and see-through parts are always kept semi-transparent here; leave semitransparency out or send true'
    )
  }
  if (problems.items.length > 0) throw new RemoveBgError(400, problems.items)
  return { size, cap: SIZE_CAPS[size] ?? null, type, format, roi, crop, cropMargin, scale, position, channels, bgColor, bgImageUrl, shadow }
}
