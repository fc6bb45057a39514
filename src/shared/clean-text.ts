/**
 * Text from an untrusted source (a worker's warnings or failure message, its name) made safe
 * to show: control characters (C0, DEL, C1: escape sequences, newlines) and bidirectional
 * overrides and isolates (which make text read backwards) become spaces, runs of spaces one,
 * and the result is cut to `max` characters. A character class only: linear in the length.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

export function cleanText(text: string, max: number): string {
  const cleaned = text.slice(0, max * 4).replace(UNSAFE, ' ').replace(/ {2,}/g, ' ').trim()
  return cleaned.length > max ? `${cleaned.slice(0, max - 1)}…` : cleaned
}
