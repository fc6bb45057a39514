/**
 * The options of `clipdesk process`, every one checked before any work: a bad `--mode`,
 * `--format`, `--params` (grammar and preset names), `--second-look`, `--template` or `--out` stops the command
 * with one line and exit code 2 before a photo is read, instead of 500 photos failing one by
 * one with the API's wording.
 */
import { resolve } from 'node:path'
import { MODES, OUTPUT_FORMATS, type Mode, type OutputFormat } from '../../shared/api'
import { templateProblem } from '../../shared/names'
import { parseParams } from '../../shared/params'
import { resolveParams, type PresetLookup } from '../../shared/params-layers'
import { jobMode, modeConflictKeys, modeConflictLine, modeConflicts } from '../../shared/params-mode'
import { isStorePreset } from '../../shared/presets'
import { builtinRuleSet } from '../../shared/store-rules/index'
import { SECOND_LOOK_SETTINGS } from '../../shared/params-types'
import { suggestPresets } from '../../shared/suggest'
import { MAX_PARAMS_LENGTH } from '../../shared/upload'
import { CliError } from './args'

export interface ProcessOptions {
  outDir: string
  mode: Mode
  /** The format written: --format, else the set's `format` (a store preset's), else PNG. */
  format: OutputFormat
  /** Said before the run: an explicit --format over a store preset's (its files will not pass). */
  formatWarning: string | null
  params: string | null
  template: string | null
  allVariations: boolean
  overwrite: boolean
  inputs: string[]
}

/** The store whose preset leads `params` (`amazon;…`) when its rules refuse `format`: the store's name; else null. */
function refusingStore(params: string | null, format: string): string | null {
  const parsed = params === null ? null : parseParams(params)
  const preset = parsed?.ok ? parsed.value.preset : null
  const rules = preset && isStorePreset(preset) ? builtinRuleSet(preset) : null
  const allowed = rules?.rules.formats?.allowed as string[] | undefined
  return rules && allowed && !allowed.includes(format === 'jpg' ? 'jpeg' : format) ? rules.title : null
}

const oneOf = (name: string, value: string, list: readonly string[]): string =>
  `--${name}: expected one of ${list.join(', ')}; got "${value}"`

/**
 * The options as given, checked; `presets` answers whether a preset exists (the data folder's
 * presets and the built-in ones). Throws `CliError` (exit code 2) naming the option.
 */
export function checkProcessOptions(
  values: Record<string, unknown>,
  positionals: string[],
  presets: { lookup: PresetLookup; list(): Array<{ name: string }> }
): ProcessOptions {
  if (!values.out) throw new CliError('missing --out <dir>: the folder the results go to (clipdesk process --help)')
  if (positionals.length === 0) throw new CliError('name at least one file or folder to process (clipdesk process --help)')
  const given = (values.params as string | undefined)?.trim() || null
  // --params without --mode runs as --mode params: the rule of every way in (shared/params-mode.ts).
  const mode = jobMode(values.mode, given) as string
  // --second-look is the `look` key of the set (docs/params.md), added to whatever --params says.
  const look = values['second-look'] as string | undefined
  if (look !== undefined && !(SECOND_LOOK_SETTINGS as readonly string[]).includes(look))
    throw new CliError(oneOf('second-look', look, SECOND_LOOK_SETTINGS))
  const params = look === undefined ? given : given === null ? `look=${look}` : `${given};look=${look}`
  if (!(MODES as readonly string[]).includes(mode)) throw new CliError(oneOf('mode', mode, MODES))
  const formatGiven = values.format as string | undefined
  if (formatGiven !== undefined && !(OUTPUT_FORMATS as readonly string[]).includes(formatGiven))
    throw new CliError(oneOf('format', formatGiven, OUTPUT_FORMATS))
  let setFormat: OutputFormat | undefined
  if (mode === 'params' && params === null)
    throw new CliError('--mode params needs --params <preset or settings>, e.g. --params ecommerce-white')
  if (params !== null) {
    if (params.length > MAX_PARAMS_LENGTH) throw new CliError(`--params: longer than ${MAX_PARAMS_LENGTH} characters`)
    const parsed = parseParams(params)
    const resolved = parsed.ok ? resolveParams(mode as Mode, parsed.value, presets.lookup) : parsed
    // An unknown preset's name gets the nearest one's as a suggestion, as the API's 422 does.
    const details = resolved.ok
      ? []
      : suggestPresets(
          resolved.details,
          presets.list().map((p) => p.name)
        )
    if (resolved.ok) setFormat = resolved.value.format
    if (!resolved.ok) {
      // Keys the mode cannot apply are said in one sentence, each named once (shared/params-mode.ts).
      const set = parsed.ok ? parsed.value : null
      const own = set?.values ?? {}
      const preset = (set?.preset ? presets.lookup(set.preset) : null) ?? {}
      const conflicts = modeConflictKeys(mode as Mode, own, preset, set?.preset ?? null)
      const conflictIssues = new Set(modeConflicts(mode as Mode, own, preset, set?.preset ?? null).map((d) => d.issue))
      const others = details.filter((d) => !conflictIssues.has(d.issue))
      const said = [
        ...(conflicts.length > 0 ? [modeConflictLine(mode as Mode, conflicts)] : []),
        ...others.map((d) => `${d.field.replace(/^params\.?/, '') || 'params'}: ${d.issue}`)
      ]
      throw new CliError(`--params${values.mode === undefined || mode === 'params' ? '' : ` with --mode ${mode}`}: ${said.join('; ')}`)
    }
  }
  const format = (formatGiven as OutputFormat | undefined) ?? setFormat ?? 'png'
  const same = (a: string, b: string): boolean => a.replace('jpeg', 'jpg') === b.replace('jpeg', 'jpg')
  const formatWarning =
    formatGiven !== undefined && setFormat !== undefined && !same(formatGiven, setFormat)
      ? `--format ${formatGiven} wins over the set's format=${setFormat}${refusingStore(params, formatGiven) ? `: the files will not pass ${refusingStore(params, formatGiven)}'s rules` : ''}`
      : null
  const template = (values.template as string | undefined) ?? null
  const problem = template === null ? null : templateProblem(template)
  if (problem) throw new CliError(`--template: ${problem}`)
  return {
    outDir: resolve(values.out as string),
    mode: mode as Mode,
    format,
    formatWarning,
    params,
    template,
    allVariations: values['all-variations'] === true,
    overwrite: values.overwrite === true,
    inputs: positionals.map((p) => resolve(p))
  }
}
