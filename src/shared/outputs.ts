/**
 * Which of a job's results the file-writing features (batches, watched folders, `clipdesk
 * process`) put on disk. A job makes every variation of its parameter set (the API's
 * `final_urls` stay as they are), but a user who picked "ecommerce white" wants one image per
 * photo: the primary. All variations are written only when asked for: the "all variations"
 * option, `--all-variations`, or a parameter set that names `variations=` itself (a preset's
 * own list does not count: picking a preset is not asking for its extras).
 * Also the preview of the file names a photo will give, for the batch screen: the same
 * choice and the same renderer (`names.ts`) as the writer. No Node, no DOM.
 */
import type { Mode, OutputFormat, Variation } from './api'
import { DEFAULT_TEMPLATES, outputNames } from './names'
import { parseParams } from './params'
import { resolveParams, type PresetLookup } from './params-layers'

/** True when the parameter set itself (not its preset) names `variations=`. */
export function namesVariations(params: string | Record<string, unknown> | null | undefined): boolean {
  if (params === null || params === undefined) return false
  const parsed = parseParams(params)
  return parsed.ok && parsed.value.values.variations !== undefined
}

/** Whether all variations are written: asked by option, or named by the set. */
export function writesAllVariations(
  params: string | Record<string, unknown> | null | undefined,
  allVariations: boolean | undefined
): boolean {
  return allVariations === true || namesVariations(params)
}

/** The results to write, primary first: all of them, or the primary alone. */
export function resultsToWrite<T extends { variation: string }>(results: readonly T[], primary: string | null, all: boolean): T[] {
  const sorted = [...results].sort((a, b) => Number(b.variation === primary) - Number(a.variation === primary))
  if (all) return sorted
  const chosen = sorted.find((r) => r.variation === primary) ?? sorted[0]
  return chosen ? [chosen] : []
}

/** What a preview shows for `{date}`: the day the file is written is not known yet. */
export const PREVIEW_DATE = 'YYYY-MM-DD'

export interface PlannedOutputs {
  variations: Variation[]
  primary: Variation
  /** For an input `photo.jpg`: `['photo.png']`, or `['photo.with-shadow.png', 'photo.on-background.png', …]`; its folders mirrored. */
  names: string[]
}

/**
 * The files one input (`relPath`, e.g. `shoot/photo.jpg`) gives, by the batch's name template or
 * the default naming; null when the parameters do not resolve (the form shows why). The writer
 * renders the same names (`outputNames`) and only adds `-1`, `-2`… to a name already taken.
 * The extension is the output format's, as the engine writes it (`jpeg` stays `jpeg`).
 */
export function plannedOutputs(
  input: {
    mode: Mode
    output_format: OutputFormat
    params: string | Record<string, unknown> | null
    all_variations?: boolean
    name_template?: string | null
  },
  relPath: string,
  lookup: PresetLookup,
  /** The input's number in the run (`{n}`), from 1. */
  seq = 1
): PlannedOutputs | null {
  const parsed = input.params === null ? null : parseParams(input.params)
  if (parsed && !parsed.ok) return null
  const resolved = resolveParams(input.mode, parsed ? parsed.value : null, lookup)
  if (!resolved.ok) return null
  const { variations, primary } = resolved.value
  const all = writesAllVariations(input.params, input.all_variations)
  const chosen = resultsToWrite(
    variations.map((variation) => ({ variation, ext: input.output_format })),
    primary,
    all
  )
  const names = outputNames(
    { relPath, template: input.name_template ?? DEFAULT_TEMPLATES.batch, mode: input.mode, params: input.params, date: PREVIEW_DATE, seq },
    chosen
  )
  return { variations: chosen.map((r) => r.variation), primary, names }
}

/**
 * `{n}` of each file of a batch in the order given: photos count 1, 2, 3…, a file that is not an
 * image takes no number (the value beside it repeats the last photo's). The batch screen's
 * preview uses it; the batch store numbers its items the same way (016-batch-item-number).
 */
export function photoNumbers(files: ReadonlyArray<{ notImage?: boolean }>): number[] {
  let n = 0
  return files.map((f) => (f.notImage ? n : ++n))
}
