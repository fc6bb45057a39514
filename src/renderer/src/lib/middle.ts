/**
 * A name cut in its middle, never at its end: "animal-portr…-large.jpg" keeps the extension and
 * the last words, which tell files of one shoot apart ("…-large.jpg", "…-small.jpg"). The cut
 * itself is the layout's: `head` is drawn with a CSS ellipsis and gives way as the space
 * shrinks, `tail` always shows (components/MiddleEllipsis.tsx), so no text is measured here.
 */

/** How much of a name's end always shows: the extension and about this many characters before it. */
export const NAME_TAIL = 10
/** Where a name's words part, and how far back the tail may reach for one. */
const SEPARATORS = new Set(['-', '_', ' ', '.', '/'])
const WORD_BACK = 6

/**
 * Splits `text` into a `head` that may be cut and a `tail` that is always shown: the last `keep`
 * characters, widened to hold the whole extension (".jpeg", ".tiff") or, for a path
 * (`folder: true`), the whole last folder when it is not much longer, and to start at a word's
 * beginning when one is a few characters back. Counted in code points, so
 * that an emoji or an accented letter written as two units is never split.
 */
export function splitForMiddle(text: string, keep = NAME_TAIL, folder = false): { head: string; tail: string } {
  const chars = Array.from(text)
  let tail = Math.min(chars.length, keep)
  const dot = chars.lastIndexOf('.')
  // An extension of up to 5 letters after the dot (".jpg", ".jpeg", ".tiff"), not a leading dot (".hidden").
  if (!folder && dot > 0 && chars.length - dot <= 6) tail = Math.max(tail, chars.length - dot)
  if (folder) {
    const slash = chars.lastIndexOf('/')
    if (slash >= 0 && chars.length - slash <= keep * 2) tail = Math.max(tail, chars.length - slash)
  }
  // Started inside a word: from the separator a few characters before ("-cut-out.png", not "ut-out.png").
  const first = chars.length - tail
  if (first > 0 && !SEPARATORS.has(chars[first]!)) {
    for (let at = first - 1; at >= Math.max(1, first - WORD_BACK); at--) {
      if (SEPARATORS.has(chars[at]!)) {
        tail = chars.length - at
        break
      }
    }
  }
  return { head: chars.slice(0, chars.length - tail).join(''), tail: chars.slice(chars.length - tail).join('') }
}
