/**
 * SVG made safe by construction: the document is parsed with a real XML parser (saxes, a
 * linear state machine) and written out again with only the allow-listed elements and
 * attributes (`svg-allow.ts`). Nothing else survives, so no external reference can reach the
 * renderer whatever spelling it uses:
 *
 * - `href` / `xlink:href` must point inside the document (`#…`); `<image>` may also carry an
 *   inline PNG/JPEG/GIF/WebP `data:` URL, which is returned so its pixels can be counted
 *   against the image limit (a 100×100 SVG must not smuggle a 144-megapixel PNG).
 * - CSS (`<style>` and `style="…"`) is scanned with `indexOf`, never a backtracking regex:
 *   `url()` not pointing at `#…` becomes `none`, and CSS holding `@import` or a backslash
 *   escape (which could spell either) is dropped whole.
 * - The DTD is not processed: internal entities with plain literal values are defined (design
 *   tools use them for namespace names); anything else, external entities included, stays
 *   undefined, and a document using an undefined entity is refused.
 *
 * This runs only inside the decode sandbox (`../sandbox`), never on the engine's main thread.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes'
import { ALLOWED_ATTRIBUTES, ALLOWED_ELEMENTS, DATA_IMAGE_PREFIXES, TEXT_ELEMENTS } from './svg-allow'
import { escapeXmlAttribute, escapeXmlText } from '../../../../shared/text'

export class SvgRefused extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SvgRefused'
  }
}

export interface CleanSvg {
  /** The cleaned document. */
  text: string
  /** Bytes of every inline raster image kept, to be measured before rendering. */
  images: Buffer[]
}

/** Deeper nesting than this is not a drawing: refused, so the writer's stack stays small. */
const MAX_DEPTH = 512
const MAX_ENTITIES = 64
const MAX_ENTITY_LENGTH = 1024

interface Open {
  name: string
  kept: boolean
  /** Text collected for a kept `<style>`, cleaned as a whole when it closes. */
  css?: string
}

export function cleanSvg(source: string): CleanSvg {
  const parser = new SaxesParser({ xmlns: false })
  const out: string[] = []
  const images: Buffer[] = []
  const stack: Open[] = []
  let sawRoot = false
  let failure: Error | null = null

  parser.on('error', (err) => {
    failure ??= err
  })
  parser.on('doctype', (doctype) => defineEntities(parser.ENTITIES, doctype))
  parser.on('opentag', (tag) => {
    const parent = stack[stack.length - 1]
    if (stack.length >= MAX_DEPTH) throw new SvgRefused(`the svg nests elements more than ${MAX_DEPTH} deep`)
    if (!sawRoot) {
      sawRoot = true
      if (tag.name !== 'svg') throw new SvgRefused(`the root element is <${tag.name}>, not <svg>`)
    }
    const kept = (parent?.kept ?? true) && ALLOWED_ELEMENTS.has(tag.name) && keepImage(tag, images)
    stack.push({ name: tag.name, kept, css: tag.name === 'style' ? '' : undefined })
    if (kept) out.push(`<${tag.name}${attributes(tag)}>`)
  })
  const onText = (text: string): void => {
    const top = stack[stack.length - 1]
    if (!top?.kept || !TEXT_ELEMENTS.has(top.name)) return
    if (top.css !== undefined) top.css += text
    else out.push(escapeXmlText(text))
  }
  parser.on('text', onText)
  parser.on('cdata', onText)
  parser.on('closetag', () => {
    const top = stack.pop()
    if (!top?.kept) return
    if (top.css !== undefined) out.push(escapeXmlText(cleanCss(top.css) ?? ''))
    out.push(`</${top.name}>`)
  })

  try {
    parser.write(source).close()
  } catch (err) {
    failure ??= err as Error
  }
  if (failure) {
    if (failure instanceof SvgRefused) throw failure
    throw new SvgRefused(`the svg is not well-formed XML: ${(failure as Error).message}`)
  }
  if (!sawRoot) throw new SvgRefused('the document has no <svg> element')
  return { text: out.join(''), images }
}

/** `<image>` is kept only with an inline raster image, whose bytes are collected. */
function keepImage(tag: SaxesTagPlain, images: Buffer[]): boolean {
  if (tag.name !== 'image') return true
  const href = (tag.attributes.href ?? tag.attributes['xlink:href'] ?? '').trim()
  const prefix = DATA_IMAGE_PREFIXES.find((p) => startsWithIgnoreCase(href, p))
  if (!prefix) return false
  images.push(Buffer.from(href.slice(prefix.length), 'base64'))
  return true
}

function attributes(tag: SaxesTagPlain): string {
  let text = ''
  for (const [name, raw] of Object.entries(tag.attributes)) {
    if (!ALLOWED_ATTRIBUTES.has(name)) continue
    let value: string | null = raw
    if (name === 'href' || name === 'xlink:href') {
      // <image> got here only with a raster data: URL (keepImage); everything else points inside.
      if (tag.name !== 'image' && !raw.trim().startsWith('#')) continue
    } else {
      // Presentation attributes are parsed as CSS values too (escapes included): same rules.
      value = cleanCss(raw)
    }
    if (value !== null) text += ` ${name}="${escapeXmlAttribute(value)}"`
  }
  return text
}

/**
 * CSS with every `url()` pointing inside the document, or null when it must be dropped whole
 * (`@import`, a backslash escape, an unterminated `url(`). Linear: `indexOf` scans only.
 */
export function cleanCss(css: string): string | null {
  if (css.includes('\\') || indexOfIgnoreCase(css, '@import', 0) >= 0) return null
  let out = ''
  let at = 0
  for (;;) {
    const start = indexOfIgnoreCase(css, 'url(', at)
    if (start < 0) return out + css.slice(at)
    const end = css.indexOf(')', start + 4)
    if (end < 0) return null
    const target = unquote(css.slice(start + 4, end).trim())
    out += css.slice(at, start) + (target.startsWith('#') && isPlainFragment(target) ? `url(${target})` : 'none')
    at = end + 1
  }
}

/** A fragment reference with no quote or bracket that could end the CSS token early. */
function isPlainFragment(target: string): boolean {
  for (const ch of target) if (ch === '"' || ch === "'" || ch === '(' || ch === ';' || ch <= ' ') return false
  return true
}

function unquote(s: string): string {
  const q = s[0]
  return (q === '"' || q === "'") && s.length >= 2 && s.endsWith(q) ? s.slice(1, -1).trim() : s
}

/**
 * Defines the internal subset's general entities whose value is a plain literal (no markup, no
 * further references): `<!ENTITY ns_svg "http://www.w3.org/2000/svg">`. External and parameter
 * entities are left undefined. A linear scan of the DOCTYPE text, bounded in count and length.
 */
export function defineEntities(entities: Record<string, string>, doctype: string): void {
  let at = doctype.indexOf('[')
  let defined = 0
  while (at >= 0 && defined < MAX_ENTITIES) {
    at = doctype.indexOf('<!ENTITY', at)
    if (at < 0) return
    at = skipSpace(doctype, at + 8)
    if (doctype[at] === '%') continue
    const nameStart = at
    while (at < doctype.length && isNameChar(doctype.charCodeAt(at))) at++
    const name = doctype.slice(nameStart, at)
    at = skipSpace(doctype, at)
    const quote = doctype[at]
    if (!name || (quote !== '"' && quote !== "'")) continue
    const end = doctype.indexOf(quote, at + 1)
    if (end < 0) return
    const value = doctype.slice(at + 1, end)
    at = end + 1
    if (doctype[skipSpace(doctype, at)] !== '>') continue
    if (value.length > MAX_ENTITY_LENGTH || value.includes('&') || value.includes('<') || value.includes('%')) continue
    entities[name] = value
    defined++
  }
}

function skipSpace(s: string, at: number): number {
  while (at < s.length && (s[at] === ' ' || s[at] === '\t' || s[at] === '\n' || s[at] === '\r')) at++
  return at
}

function isNameChar(c: number): boolean {
  return (c >= 48 && c <= 58) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 46
}

/** Case-insensitive (ASCII) `indexOf` for a lower-case needle, without copying the haystack. */
function indexOfIgnoreCase(hay: string, needle: string, from: number): number {
  outer: for (let i = from; i <= hay.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) {
      const c = hay.charCodeAt(i + j)
      const n = needle.charCodeAt(j)
      // Setting bit 5 lower-cases an ASCII letter and can only turn c into n if c is n's capital.
      if (c !== n && !(n >= 97 && n <= 122 && (c | 0x20) === n)) continue outer
    }
    return i
  }
  return -1
}

function startsWithIgnoreCase(s: string, prefix: string): boolean {
  return indexOfIgnoreCase(s.slice(0, prefix.length), prefix, 0) === 0
}
