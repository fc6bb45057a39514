/**
 * The words a designer reads, in one place: what each variation and each mode is called on
 * every screen, in the command line's help and in the names of files written by default. The
 * API keeps its own names (`clipping`, `compose`, `shadowTop`…, docs/api.md); these words are
 * for display and file names only, and every screen takes them from here so that Batches,
 * Watched folders, Presets and the reports say the same thing (docs/vocabulary.md).
 * No Node, no DOM.
 */
import type { Mode, Variation } from './api'

/** How a variation is called on screen. */
export const VARIATION_LABEL: Record<Variation, string> = {
  clipping: 'Cut-out',
  background: 'Background only',
  compose: 'On background',
  shadowTop: 'With shadow',
  mask: 'Mask'
}

/**
 * The variation's word in a file name (`{variation}` of a name template, and the default names
 * when several files are written per photo): `photo.cut-out.png`, `photo.with-shadow.png`.
 */
export const VARIATION_FILE_WORD: Record<Variation, string> = {
  clipping: 'cut-out',
  background: 'background',
  compose: 'on-background',
  shadowTop: 'with-shadow',
  mask: 'mask'
}

/** The file-name word of a variation; a name the list does not know stays as it is. */
export function variationFileWord(variation: string): string {
  return (VARIATION_FILE_WORD as Record<string, string>)[variation] ?? variation
}

/** The screen label of a variation; a name the list does not know stays as it is. */
export function variationLabel(variation: string): string {
  return (VARIATION_LABEL as Record<string, string>)[variation] ?? variation
}

/** The mode's word in a file name, for `{preset}` when no preset is followed: `cut-out/photo.png`. */
export const MODE_FILE_WORD: Record<Mode, string> = {
  clipping: 'cut-out',
  background: 'on-white',
  params: 'custom'
}

/** How each mode is called on every screen (the batch form, the watched-folder form, the lists). */
export const MODE_LABEL: Record<Mode, string> = {
  clipping: 'Cut-out (transparent)',
  background: 'On white background',
  params: 'Custom settings'
}

/**
 * What a file whose cutout needs a person's look is called: its badge, the list's filter and
 * the count ("3 to check"; docs/review.md).
 */
export const TO_CHECK_LABEL = 'To check'

/** The mode select's option for a request that follows a preset. */
export const FROM_PRESET_LABEL = 'From the preset'

/**
 * One line for what a batch or a watched folder does: the preset's name when it follows one,
 * else the mode's label, then the format: `Cut-out (transparent) · PNG`, `Preset shop-beige · JPG`.
 * `presetTitle` turns a preset's name into its display name when the screen knows it.
 */
export function describeJob(
  request: { mode: Mode; params: string | Record<string, unknown> | null; output_format: string },
  presetTitle: (name: string) => string = (name) => name
): string {
  const format = request.output_format.toUpperCase()
  if (request.mode !== 'params') return `${MODE_LABEL[request.mode]} · ${format}`
  const params = request.params
  if (typeof params === 'string') {
    const first = params.split(/[;&]/)[0]!.trim()
    const rest = params.slice(first.length).replace(/^[;&]/, '').trim()
    if (first !== '' && !first.includes('=')) return `Preset ${presetTitle(first)}${rest ? ' with changes' : ''} · ${format}`
  }
  return `${MODE_LABEL.params} · ${format}`
}

/** `1 photo`, `3 photos`: a count with its noun in the right number (`many` for irregular plurals). */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}

/** A report's counts, in words: only those that are not zero, `label` taking the count (`n => '3 done'`). */
export function countsLine(parts: ReadonlyArray<[number, (n: number) => string]>): string {
  const said = parts.filter(([n]) => n > 0).map(([n, label]) => label(n))
  return said.length > 0 ? said.join(', ') : 'nothing'
}

/** A run's settings as its report keeps them (the JSON keeps the API's names; the text says these words). */
export interface RunSettings {
  mode: Mode
  /** `format` (`clipdesk process`) or `output_format` (batches). */
  format?: string
  output_format?: string
  params?: string | Record<string, unknown> | null
  all_variations?: boolean
  /** `template` (`clipdesk process`) or `name_template` (batches); null or absent: the default names. */
  template?: string | null
  name_template?: string | null
}

/**
 * A run's settings in a designer's words, for the readable report: `Cut-out (transparent) · PNG;
 * one file per photo; default names`, `Preset ecommerce-white · JPG; every variation; names
 * {preset}/{name}.{ext}`. Inline settings are quoted as given (they are what the user typed).
 */
export function describeSettings(s: RunSettings): string {
  const params = s.params ?? null
  const job = describeJob({ mode: s.mode, params, output_format: s.format ?? s.output_format ?? 'png' })
  const typed =
    typeof params === 'string' && params.includes('=')
      ? ` (${params})`
      : params !== null && typeof params === 'object'
        ? ` (${JSON.stringify(params)})`
        : ''
  const template = s.template ?? s.name_template ?? null
  return `${job}${typed}; ${s.all_variations ? 'every variation' : 'one file per photo'}; ${template ? `names ${template}` : 'default names'}`
}

/**
 * One of a job's warnings about a file written, in a designer's words, for the activity of a
 * watched folder, a batch file's warnings and the reports: `With shadow: flattened onto white
 * (JPG has no transparency)`. The API keeps the engine's own text (`the clipping variation was
 * flattened onto white: jpg has no transparency`, docs/api.md); only that sentence is reworded
 * here, any other warning is kept as it is after the file's label.
 */
export function warningText(variation: string, warning: string): string {
  const flattened = ' variation was flattened onto white: '
  const at = warning.indexOf(flattened)
  let said = warning
  if (warning.startsWith('the ') && at > 0 && warning.endsWith(' has no transparency')) {
    const format = warning.slice(at + flattened.length, warning.length - ' has no transparency'.length)
    said = `flattened onto white (${format.toUpperCase()} has no transparency)`
  }
  return `${variationLabel(variation)}: ${said}`
}
