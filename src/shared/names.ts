/**
 * Output names, the one renderer for every feature that writes files (batches, watched folders,
 * `clipdesk process`) and for the previews the screens show before anything runs: the name
 * template grammar, token values made safe, and the mirrored sub-folder of the input. The
 * writer (`src/main/outputs/`) then resolves the name inside its output folder, checks it stays
 * inside, and numbers it when taken. No Node, no DOM.
 */
import { stripControls } from './text'
import { MODE_FILE_WORD, variationFileWord } from './vocabulary'

export const NAME_TOKENS = ['name', 'ext', 'variation', 'date', 'preset', 'n'] as const
export type NameToken = (typeof NAME_TOKENS)[number]
export type TokenValues = Record<NameToken, string>

/**
 * One token as written in a template: its name and, for `{n}` only, a width to zero-pad to
 * (`{n:3}` → `007`). Null when the text between the braces is no token.
 */
function parseToken(inner: string): { token: NameToken; width: number } | null {
  const [name, width, ...rest] = inner.split(':')
  if (rest.length > 0 || !(NAME_TOKENS as readonly string[]).includes(name!)) return null
  if (width === undefined) return { token: name as NameToken, width: 0 }
  if (name !== 'n' || !/^[1-9]$/.test(width)) return null
  return { token: 'n', width: Number(width) }
}

/** The default naming of batches and `clipdesk process`: `{name}.{ext}`, or with the variation when several files are written. */
export function defaultTemplate(several: boolean): string {
  return several ? '{name}.{variation}.{ext}' : '{name}.{ext}'
}

/** The features that write files (docs/names.md). */
export type OutputFeature = 'batch' | 'process' | 'watch'

/**
 * The one naming rule, and where a feature's default differs from it, with why (docs/names.md):
 * a template given is rendered the same by all three; with none, batches and `clipdesk process`
 * use `defaultTemplate` (`photo.png`: a catalogue's file keeps its own name), a watched folder
 * `{name}.{variation}.{ext}` (`photo.cut-out.png`: docs/names.md — a folder lives
 * for months while its settings change, and a name that always says what the file is keeps
 * the names of before and after a change in one scheme). A watched folder stores its template
 * when added, so a folder keeps the names it started with whatever default comes later.
 */
export const DEFAULT_TEMPLATES: Record<OutputFeature, string | null> = {
  batch: null,
  process: null,
  watch: '{name}.{variation}.{ext}'
}

/**
 * Whether a folder given as input is mirrored under its own name (`shoot/day1/a.jpg`) or its
 * contents at the top of the output folder (`day1/a.jpg`). A batch collects drops (folders and
 * loose files, at several times, from several places) into one destination, where each drop's
 * name keeps them apart; `clipdesk process` names its output folder for the run (`--out`), and
 * a watched folder's output belongs to that one folder, so neither repeats the folder's name.
 */
export const MIRRORS_FOLDER_NAME: Record<OutputFeature, boolean> = { batch: true, process: false, watch: false }

const TOKEN_RE = /\{([^{}]*)\}/g

/**
 * Checks a name template. Tokens are `{name} {ext} {variation} {date} {preset} {n}` (`{n}`: the
 * input's number in its run, from 1; `{n:3}` pads it with zeros to 3 digits); the literal
 * text may contain `/` for sub-folders but no `..` segment, no leading `/`, no `\`.
 * Returns the problem in words, or null when the template is fine.
 */
export function templateProblem(template: string): string | null {
  if (template.trim() === '') return 'the name template is empty'
  if (template.length > 512) return 'the name template is longer than 512 characters'
  if (/[\0-\x1f]/.test(template)) return 'the name template contains control characters'
  for (const m of template.matchAll(TOKEN_RE)) {
    if (!parseToken(m[1]!)) {
      return `unknown token {${m[1]}}; use ${NAME_TOKENS.map((t) => `{${t}}`).join(' ')} (or {n:3} for 001, 002…)`
    }
  }
  const literal = template.replace(TOKEN_RE, 'x')
  if (/[{}]/.test(literal)) return 'the name template has an unmatched { or }'
  if (literal.includes('\\')) return 'use / (not \\) for sub-folders in the name template'
  if (literal.startsWith('/') || /^[a-zA-Z]:/.test(literal)) return 'the name template must be relative to the output folder'
  const segments = literal.split('/')
  if (segments.some((s) => s === '..' || s === '.')) return 'the name template must not contain . or .. folders'
  if (segments.some((s) => s.trim() === '')) return 'the name template has an empty folder or file name'
  if (!template.includes('{name}')) return 'the name template must contain {name}, or every input would get the same name'
  return null
}

/** Longest file or folder name written (bytes are what file systems count; 255 is the common cap). */
const MAX_SEGMENT_BYTES = 200
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i
/** Characters Windows or macOS refuse in a name, and the separators. */
const REFUSED = /[/\\:*?"<>|]/g
const encoder = new TextEncoder()
const bytesOf = (text: string): number => encoder.encode(text).length

/**
 * A token's value as one safe piece of a name: no control characters or bidi marks (removed:
 * names are text), no separators or characters that Windows or macOS refuse (`_`), no leading
 * dots (hidden, or `..`) and no trailing dots or spaces. Never empty.
 */
export function sanitizeToken(value: string): string {
  const cleaned = stripControls(value.normalize('NFC'))
    .replace(REFUSED, '_')
    .replace(/^[\s.]+/, '')
    .replace(/[\s.]+$/, '')
  return cleaned === '' ? '_' : cleaned
}

function truncateBytes(text: string, maxBytes: number): string {
  let out = text
  while (bytesOf(out) > maxBytes) out = out.slice(0, -1)
  return out
}

/** One folder or file name of a rendered path: never `.`/`..`, never a reserved device name, not too long, no control characters. */
export function sanitizeSegment(segment: string): string {
  let s = stripControls(segment)
    .replace(/[\\:*?"<>|]/g, '_')
    .replace(/[\s.]+$/, '')
  if (s === '' || s === '.' || s === '..') s = '_'
  if (WINDOWS_RESERVED.test(s)) s = `_${s}`
  if (bytesOf(s) > MAX_SEGMENT_BYTES) {
    const dot = s.lastIndexOf('.')
    const ext = dot > 0 && s.length - dot <= 16 ? s.slice(dot) : ''
    s = truncateBytes(s.slice(0, s.length - ext.length), MAX_SEGMENT_BYTES - bytesOf(ext)) + ext
  }
  return s
}

/**
 * Renders a template into a '/'-separated relative path. Token values are sanitised first, so
 * only the template's own literal `/` make folders; then every segment is.
 */
export function renderTemplate(template: string, values: TokenValues): string {
  const problem = templateProblem(template)
  if (problem) throw new Error(`bad name template "${template}": ${problem}`)
  const rendered = template.replace(TOKEN_RE, (_m, inner: string) => {
    const { token, width } = parseToken(inner)!
    return sanitizeToken(values[token].padStart(width, '0'))
  })
  return rendered.split('/').map(sanitizeSegment).join('/')
}

/** `{date}`: the local calendar day, YYYY-MM-DD. */
export function dateToken(d: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
}

/**
 * `{preset}`: the preset a params string starts from (`ecommerce-white` or
 * `ecommerce-white;size=…`), else the mode's file word (`cut-out`, `on-white`, `custom`:
 * src/shared/vocabulary.ts), so the token is never empty. A params object names no preset.
 */
export function presetToken(mode: string, params: unknown): string {
  if (typeof params === 'string' && params) {
    const first = params.trim().split(/[;&]/)[0]!.trim()
    if (/^[a-z0-9][a-z0-9_-]{0,63}$/.test(first)) return first
  }
  return (MODE_FILE_WORD as Record<string, string>)[mode] ?? mode
}

/** The parts of an input's path inside what was given ('/'-separated): its folders, and its name without the last extension. */
export function splitInputPath(relPath: string): { dirs: string[]; stem: string } {
  const parts = relPath.split('/').filter((p) => p !== '' && p !== '.' && p !== '..')
  const file = parts.pop() ?? ''
  const dot = file.lastIndexOf('.')
  return { dirs: parts, stem: dot > 0 ? file.slice(0, dot) : file }
}

export interface NamingInput {
  /** The input's path inside what was given, e.g. `day1/photo.jpg`: its folders are mirrored. */
  relPath: string
  /** The template, or null for the default (`defaultTemplate`). */
  template: string | null
  mode: string
  params: unknown
  /** The `{date}` value (`dateToken`, or a placeholder in a preview). */
  date: string
  /** The `{n}` value: the input's number in its run, from 1 (a batch's file order, a folder's arrival order, a command's input order). */
  seq: number
}

/**
 * The relative output paths ('/'-separated, sanitised) of one input's results, in order: the
 * input's folders mirrored, then the rendered template. The writer resolves them in its output
 * folder and numbers those taken; a preview shows them as they are.
 */
export function outputNames(input: NamingInput, results: ReadonlyArray<{ variation: string; ext: string }>): string[] {
  const { dirs, stem } = splitInputPath(input.relPath)
  const template = input.template ?? defaultTemplate(results.length > 1)
  const preset = presetToken(input.mode, input.params)
  const folder = dirs.map(sanitizeSegment)
  // `{variation}` is the designer's word for it (`cut-out`, `with-shadow`: src/shared/vocabulary.ts), not the API's name.
  return results.map((r) =>
    [
      ...folder,
      renderTemplate(template, {
        name: stem,
        ext: r.ext,
        variation: variationFileWord(r.variation),
        date: input.date,
        preset,
        n: String(input.seq)
      })
    ].join('/')
  )
}
