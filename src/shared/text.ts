/**
 * Names are text, not commands. A file name, a batch name or an error message can carry
 * control characters (ESC sequences that clear a terminal or forge a line, a newline, DEL, the
 * C1 range) and bidirectional formatting marks (U+202E shows `gnp.exe` as `exe.png`). Three
 * helpers, used everywhere such text leaves the program:
 * - `stripControls` for names that are written to disk: the characters are removed;
 * - `cleanText` for text from an untrusted peer shown to a user (a studio worker's warnings,
 *   failure message, name): each becomes a space, runs of spaces one, cut to a length;
 * - `escapeControls` for lines printed to a terminal or written to a text report: each one is
 *   shown as an escape (`\n`, `\x1b`, `\u202e`), so that what was there stays visible.
 * And the XML escapes of text and of an attribute's value (`escapeXmlText`, `escapeXmlAttribute`),
 * for the SVG and XMP written back after cleaning.
 * No Node, no DOM.
 */

/** C0 controls, DEL, C1 controls, and the bidi marks (Arabic letter mark included), embeddings, overrides and isolates. */
const NOT_TEXT = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/** `text` without control characters and bidi marks (for names written to disk). */
export function stripControls(text: string): string {
  return text.replace(NOT_TEXT, '')
}

/** `text` with each control character and bidi mark shown as an escape (for terminals and text reports). */
export function escapeControls(text: string): string {
  return text.replace(NOT_TEXT, (c) => {
    const named = NAMED[c]
    if (named) return named
    const code = c.charCodeAt(0)
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
  })
}

/** Untrusted text made safe to show: each control character or bidi mark a space, runs of spaces one, at most `max` characters. */
export function cleanText(text: string, max: number): string {
  const cleaned = text
    .slice(0, max * 4)
    .replace(NOT_TEXT, ' ')
    .replace(/ {2,}/g, ' ')
    .trim()
  return cleaned.length > max ? `${cleaned.slice(0, max - 1)}…` : cleaned
}

/** Text as XML character data: `&`, `<` and `>` escaped. */
export function escapeXmlText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

/** Text as an XML attribute's value between double quotes: `"` escaped too. */
export function escapeXmlAttribute(text: string): string {
  return escapeXmlText(text).replaceAll('"', '&quot;')
}
