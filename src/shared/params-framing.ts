/**
 * The grammar of the framing keys of a parameter set (docs/params.md "Framing"): `margin` with
 * one value or four, and `position` per axis. Each reader gives the value, or the problem in
 * words for the key's error detail. No Node, no DOM here.
 */
import {
  marginSides,
  positionOf,
  type HorizontalAlign,
  type MarginLength,
  type MarginSpec,
  type PositionSpec,
  type SizeSpec,
  type VerticalAlign
} from './params-types'

/** Largest `margin=<n>px`. */
export const MAX_MARGIN_PX = 5_000
/** `margin=<n>%` must stay below this (the subject needs some room). */
export const MARGIN_PERCENT_LIMIT = 50

export type Read<T> = { ok: true; value: T } | { ok: false; issue: string | null }

const describe = (v: unknown): string => (typeof v === 'string' ? `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"` : String(v))
const isWhole = (n: number, min: number, max: number): boolean => Number.isInteger(n) && n >= min && n <= max

/** One side's length: `5%`, `2.5%`, `40px`, `0`, or a number (pixels, the JSON form). */
function readLength(v: unknown): Read<MarginLength> {
  const px = (n: number): Read<MarginLength> =>
    isWhole(n, 0, MAX_MARGIN_PX)
      ? { ok: true, value: { unit: 'px', value: n } }
      : { ok: false, issue: `a margin in pixels must be a whole number from 0 to ${MAX_MARGIN_PX}, got ${describe(v)}` }
  if (typeof v === 'number') return px(v)
  if (typeof v !== 'string') return { ok: false, issue: null }
  const s = v.trim()
  if (s === '0') return { ok: true, value: { unit: 'px', value: 0 } }
  // Anchored, no nested repetition: linear on any input.
  const pct = /^(\d{1,6}(?:\.\d{1,6})?)%$/.exec(s)
  if (pct) {
    const n = Number(pct[1])
    if (n >= MARGIN_PERCENT_LIMIT)
      return { ok: false, issue: `a margin in percent must be under ${MARGIN_PERCENT_LIMIT}%, got ${describe(s)}` }
    return { ok: true, value: { unit: '%', value: n } }
  }
  const inPx = /^(\d{1,9})px$/.exec(s)
  if (inPx) return px(Number(inPx[1]))
  return { ok: false, issue: null }
}

/**
 * `margin`: one length for every side, or four separated by commas in CSS order (top, right,
 * bottom, left), each in `%` or `px` (JSON: also an array of four). `null` issue: say what is
 * expected.
 */
export function readMargin(v: unknown): Read<MarginSpec> {
  const parts = Array.isArray(v) ? v : typeof v === 'string' && v.includes(',') ? v.split(',') : null
  if (parts === null) return readLength(v)
  if (parts.length !== 4) {
    return {
      ok: false,
      issue: `four sides are top, right, bottom, left (e.g. 4%,6%,8%,6%); got ${parts.length} value${parts.length === 1 ? '' : 's'}`
    }
  }
  const sides: MarginLength[] = []
  for (const part of parts) {
    const r = readLength(part)
    if (!r.ok) return r.issue ? r : { ok: false, issue: `each side is <n>% or <n>px; got ${describe(part)}` }
    sides.push(r.value)
  }
  return { ok: true, value: sides as [MarginLength, MarginLength, MarginLength, MarginLength] }
}

const HORIZONTAL: readonly string[] = ['left', 'center', 'right']
const VERTICAL: readonly string[] = ['top', 'center', 'bottom']

/**
 * `position`: one word (`center`, `top`, `bottom`, `left`, `right`) or `<x>,<y>` with x one of
 * left, center, right and y one of top, center, bottom (`left,bottom`). Stored in its shortest
 * form, so `center,bottom` is `bottom`.
 */
export function readPosition(v: unknown): Read<PositionSpec> {
  if (typeof v !== 'string') return { ok: false, issue: null }
  const s = v.trim()
  const parts = s.split(',').map((p) => p.trim())
  if (parts.length === 1) {
    const [w] = parts as [string]
    if (w === 'center') return { ok: true, value: 'center' }
    if (w === 'top' || w === 'bottom') return { ok: true, value: w }
    if (w === 'left' || w === 'right') return { ok: true, value: w }
    return { ok: false, issue: null }
  }
  if (parts.length === 2 && HORIZONTAL.includes(parts[0]!) && VERTICAL.includes(parts[1]!)) {
    return { ok: true, value: positionOf(parts[0] as HorizontalAlign, parts[1] as VerticalAlign) }
  }
  return {
    ok: false,
    issue: `the two-part form is <x>,<y>: x one of ${HORIZONTAL.join(', ')}, y one of ${VERTICAL.join(', ')}; got ${describe(s)}`
  }
}

/**
 * Whether a margin leaves room for the subject in a canvas the size gives (`<W>x<H>`, `<max>`):
 * the words of the problem for the first axis whose two margins take it all, or null. With
 * `size=original` the canvas grows around the subject, so there is always room.
 */
export function marginRoomProblem(margin: MarginSpec, size: SizeSpec): string | null {
  const sides = marginSides(margin)
  const room = (edge: 'width' | 'height'): number => (size.kind === 'box' ? size[edge] : size.kind === 'long' ? size.max : Infinity)
  const axes = [
    { room: room('width'), a: sides.left, b: sides.right, say: 'left and right' },
    { room: room('height'), a: sides.top, b: sides.bottom, say: 'top and bottom' }
  ]
  for (const axis of axes) {
    const px = (axis.a.unit === 'px' ? axis.a.value : 0) + (axis.b.unit === 'px' ? axis.b.value : 0)
    const pct = (axis.a.unit === '%' ? axis.a.value : 0) + (axis.b.unit === '%' ? axis.b.value : 0)
    if (px >= axis.room * (1 - pct / 100)) return `leaves no room for the subject between ${axis.say}`
  }
  return null
}
