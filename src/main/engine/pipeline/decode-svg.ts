/**
 * SVG inputs are rendered by sharp (librsvg) with no external resources (SPEC §5).
 *
 * What librsvg 2.63 does on its own, checked by `decode.test.ts`: an SVG given as a buffer has no
 * base URL, so it refuses every non-`data:` reference (`<image>`, `<use>`, CSS `url()`, XInclude),
 * and libxml2 does not load external entities (the document then fails to parse). Nothing is
 * fetched and no file is read.
 *
 * We still neutralise external references before rendering, so that this guarantee does not
 * rest on one library's default alone: every `href` / `xlink:href`, CSS `url(…)` and `@import`
 * that does not point inside the document (`#…`) or at inline `data:` is rewritten to an inert
 * value, and external entity declarations become empty internal ones. A reference that is
 * neutralised simply renders nothing, as it would have anyway.
 */
import { gunzipSync } from 'node:zlib'

/** An inline, empty resource: renders nothing, fetches nothing. */
const INERT_URL = 'data:,'

/** `href`, `xlink:href` or any other prefixed href attribute with its quoted value. */
const HREF_ATTRIBUTE = /(\s(?:[A-Za-z_][\w.-]*:)?href\s*=\s*)(?:"([^"]*)"|'([^']*)')/gi
/** CSS `url(…)`, quoted or not, in style elements and attributes. */
const CSS_URL = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"]*))\s*\)/gi
/** CSS `@import` (an unknown at-rule is ignored by CSS parsers). */
const CSS_IMPORT = /@import\b/gi
/** `<!ENTITY name SYSTEM "uri">` or `<!ENTITY name PUBLIC "id" "uri">` (also parameter entities). */
const EXTERNAL_ENTITY = /<!ENTITY(\s+%?\s*[^\s>]+)\s+(?:SYSTEM\s*(?:"[^"]*"|'[^']*')|PUBLIC\s*(?:"[^"]*"|'[^']*')\s*(?:"[^"]*"|'[^']*'))(\s+NDATA\s+[^\s>]+)?\s*>/gi

/** A reference that stays inside the document or carries its own data. */
function isInternal(ref: string): boolean {
  const r = ref.trim()
  return r.startsWith('#') || /^data:/i.test(r)
}

/** The SVG text with every external reference made inert (see the module comment). */
export function neutraliseSvg(text: string): string {
  return text
    .replace(EXTERNAL_ENTITY, '<!ENTITY$1 "">')
    .replace(HREF_ATTRIBUTE, (whole, lead: string, dq?: string, sq?: string) => {
      const value = dq ?? sq ?? ''
      return isInternal(value) ? whole : `${lead}"${INERT_URL}"`
    })
    .replace(CSS_URL, (whole, dq?: string, sq?: string, bare?: string) => (isInternal(dq ?? sq ?? bare ?? '') ? whole : 'url(#none)'))
    .replace(CSS_IMPORT, '@blocked-import')
}

const GZIP_MAGIC = [0x1f, 0x8b]

/**
 * The SVG bytes ready for sharp: gunzipped when compressed (`.svgz`, at most `maxBytes` once
 * inflated) and neutralised. Returns null when the inflated text would exceed `maxBytes`.
 */
export function prepareSvg(bytes: Buffer, maxBytes: number): Buffer | null {
  let raw = bytes
  if (bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1]) {
    try {
      raw = gunzipSync(bytes, { maxOutputLength: maxBytes })
    } catch {
      return null
    }
  }
  return Buffer.from(neutraliseSvg(raw.toString('utf8')), 'utf8')
}
