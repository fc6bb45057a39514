/**
 * Which of a job's results the file-writing clients (batches, watched folders, `clipdesk
 * process`) put on disk. A job makes every variation of its parameter set (the API's
 * `final_urls` stay as they are), but a user who picked "ecommerce white" wants one image per
 * photo: the primary. All variations are written only when asked for: the "all variations"
 * option, `--all-variations`, or a parameter set that names `variations=` itself (a preset's
 * own list does not count: picking a preset is not asking for its extras).
 * Also the preview of the file names a photo will give, for the batch screen. No Node, no DOM.
 */
import type { Mode, OutputFormat, Variation } from './api'
import { parseParams, resolveParams, type PresetLookup } from './params'

/** True when the parameter set itself (not its preset) names `variations=`. */
export function namesVariations(params: string | Record<string, unknown> | null | undefined): boolean {
  if (params === null || params === undefined) return false
  const parsed = parseParams(params)
  return parsed.ok && parsed.value.values.variations !== undefined
}

/** Whether all variations are written: asked by option, or named by the set. */
export function writesAllVariations(params: string | Record<string, unknown> | null | undefined, allVariations: boolean | undefined): boolean {
  return allVariations === true || namesVariations(params)
}

/** The results to write, primary first: all of them, or the primary alone. */
export function resultsToWrite<T extends { variation: string }>(results: readonly T[], primary: string | null, all: boolean): T[] {
  const sorted = [...results].sort((a, b) => Number(b.variation === primary) - Number(a.variation === primary))
  if (all) return sorted
  const chosen = sorted.find((r) => r.variation === primary) ?? sorted[0]
  return chosen ? [chosen] : []
}

/** The file extension a format writes. */
export function extensionOf(format: OutputFormat): string {
  return format === 'jpeg' ? 'jpg' : format
}

export interface PlannedOutputs {
  variations: Variation[]
  primary: Variation
  /** For an input `photo.jpg`: `['photo.png']`, or `['photo.shadowTop.png', 'photo.compose.png', …]`. */
  names: string[]
}

/**
 * The files one input gives, by the batch's name template or the default naming (`{name}.{ext}`,
 * or `{name}.{variation}.{ext}` when several are written; a `{date}` shows as `YYYY-MM-DD`);
 * null when the parameters do not resolve (the form shows why). A preview: the writer still
 * sanitises each token and numbers names already taken.
 * Some variations are made in PNG whatever the format (`mask`, and transparent cut-outs in JPEG).
 */
export function plannedOutputs(
  input: {
    mode: Mode
    output_format: OutputFormat
    params: string | Record<string, unknown> | null
    all_variations?: boolean
    name_template?: string | null
  },
  stem: string,
  lookup: PresetLookup
): PlannedOutputs | null {
  const parsed = input.params === null ? null : parseParams(input.params)
  if (parsed && !parsed.ok) return null
  const resolved = resolveParams(input.mode, parsed ? parsed.value : null, lookup)
  if (!resolved.ok) return null
  const { variations, primary } = resolved.value
  const all = writesAllVariations(input.params, input.all_variations)
  const chosen = resultsToWrite(variations.map((variation) => ({ variation })), primary, all).map((r) => r.variation)
  const ext = extensionOf(input.output_format)
  const preset = typeof input.params === 'string' ? (/^[a-z0-9][a-z0-9_-]{0,63}(?=$|[;&])/.exec(input.params.trim())?.[0] ?? input.mode) : input.mode
  const tokens: Record<string, string> = { name: stem, ext, preset, date: 'YYYY-MM-DD' }
  const names = chosen.map((v) =>
    input.name_template
      ? input.name_template.replace(/\{([a-z]+)\}/g, (m, t: string) => (t === 'variation' ? v : (tokens[t] ?? m)))
      : chosen.length > 1
        ? `${stem}.${v}.${ext}`
        : `${stem}.${ext}`
  )
  return { variations: chosen, primary, names }
}
