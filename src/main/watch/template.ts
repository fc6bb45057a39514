/**
 * Output names of watched folders: the name template (SPEC §6), sanitised so that a token can
 * never add a folder, climb out with `..`, or make a name the OS refuses; and the final check
 * that a path is inside the output folder, which every write goes through.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { templateProblem, type NameToken } from '../../shared/watch'

export type TokenValues = Record<NameToken, string>

/** Longest file or folder name written (bytes are what file systems count; 255 is the common cap). */
const MAX_SEGMENT_BYTES = 200
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i

/**
 * A token's value as one safe piece of a name: no separators or characters that Windows or
 * macOS refuse, no control characters, no leading dots (hidden, or `..`) and no trailing dots
 * or spaces. Never empty.
 */
export function sanitizeToken(value: string): string {
  const cleaned = value
    .normalize('NFC')
    .replace(/[\0-\x1f\x7f/\\:*?"<>|]/g, '_')
    .replace(/^[\s.]+/, '')
    .replace(/[\s.]+$/, '')
  return cleaned === '' ? '_' : cleaned
}

function truncateBytes(text: string, maxBytes: number): string {
  let out = text
  while (Buffer.byteLength(out, 'utf8') > maxBytes) out = out.slice(0, -1)
  return out
}

/** One folder or file name of a rendered path: never `.`/`..`, never a reserved device name, not too long. */
export function sanitizeSegment(segment: string): string {
  let s = segment.replace(/[\0-\x1f\x7f\\:*?"<>|]/g, '_').replace(/[\s.]+$/, '')
  if (s === '' || s === '.' || s === '..') s = '_'
  if (WINDOWS_RESERVED.test(s)) s = `_${s}`
  if (Buffer.byteLength(s, 'utf8') > MAX_SEGMENT_BYTES) {
    const dot = s.lastIndexOf('.')
    const ext = dot > 0 && s.length - dot <= 16 ? s.slice(dot) : ''
    s = truncateBytes(s.slice(0, s.length - ext.length), MAX_SEGMENT_BYTES - Buffer.byteLength(ext, 'utf8')) + ext
  }
  return s
}

/**
 * Renders a template (already checked by `templateProblem`) into a '/'-separated relative
 * path. Token values are sanitised first, so only the template's own literal `/` make folders.
 */
export function renderTemplate(template: string, values: TokenValues): string {
  const problem = templateProblem(template)
  if (problem) throw new Error(`bad name template "${template}": ${problem}`)
  const rendered = template.replace(/\{([a-z]+)\}/g, (_m, token: NameToken) => sanitizeToken(values[token]))
  return rendered.split('/').map(sanitizeSegment).join('/')
}

/** True when `path` is `root` itself or inside it (both resolved). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path))
  return rel === '' || (rel.split(sep)[0] !== '..' && !isAbsolute(rel))
}

/** True when `path` is strictly inside `root`. */
export function isStrictlyInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path))
  return rel !== '' && rel.split(sep)[0] !== '..' && !isAbsolute(rel)
}

/**
 * The absolute output path for an input at `relDir` (its folder inside the watched folder,
 * mirrored) and a rendered name. Throws when the result would leave the output folder; with
 * sanitised inputs it cannot, so a throw here is a bug caught before any write.
 */
export function outputTarget(outputDir: string, relDir: string, renderedName: string): string {
  const dirParts = relDir === '' || relDir === '.' ? [] : relDir.split('/').map(sanitizeSegment)
  const target = resolve(outputDir, ...dirParts, ...renderedName.split('/'))
  if (!isStrictlyInside(outputDir, target)) throw new Error(`refusing to write outside the output folder: ${target}`)
  return target
}

/** `{date}`: the local calendar day, YYYY-MM-DD. */
export function dateToken(d: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
}

/**
 * `{preset}`: the preset a params string starts from (`ecommerce-white` or
 * `ecommerce-white;size=…`), else the mode, so the token is never empty.
 */
export function presetToken(mode: string, params: string | null): string {
  if (params) {
    const first = params.trim().split(/[;&]/)[0]!.trim()
    if (/^[a-z0-9][a-z0-9_-]{0,63}$/.test(first)) return first
  }
  return mode
}
