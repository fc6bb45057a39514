/**
 * A name cut in its middle, never at its end: "animal-portr…-large.jpg" keeps the extension and
 * the last words, which tell files of one shoot apart ("…-large.jpg", "…-small.jpg"). The cut
 * itself is the layout's: `head` is drawn with a CSS ellipsis and gives way as the space
 * shrinks, `tail` always shows (components/MiddleEllipsis.tsx), so no text is measured here.
 */

/** How much of a name's end always shows: the extension and about this many characters before it. */
export const NAME_TAIL = 10

/**
 * Splits `text` into a `head` that may be cut and a `tail` that is always shown: the last `keep`
 * characters, widened to hold the whole extension (".jpeg", ".tiff") or, for a path
 * (`folder: true`), the whole last folder when it is not much longer. Counted in code points, so
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
  return { head: chars.slice(0, chars.length - tail).join(''), tail: chars.slice(chars.length - tail).join('') }
}
