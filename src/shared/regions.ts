/**
 * Look-again boxes of an upload (docs/api.md "Look-again regions"): the field `regions`, a JSON
 * array of at most `MAX_REGIONS` boxes `{x, y, width, height}` in the input's upright pixels,
 * covering at most `MAX_REGIONS_AREA` times the photo's area between them. The model runs again
 * on each box's crop (docs/touch-up.md "Look again"), and the refine step on the crop again: each
 * box costs about what the job's own run costs on that much of the photo, so both the count and
 * the area are bounded (eight near-full boxes were nine times the work of the job they came with).
 *
 * Checked in two steps, as the other fields are: the syntax here (with the other fields'
 * problems), the boxes against the image once its size is known, in the engine
 * (`engine/intake/regions.ts`).
 */
import { z } from 'zod'

/** The most boxes one job may ask for: each is one more model run. */
export const MAX_REGIONS = 8
/**
 * The most the boxes may cover together, in photos' areas (overlaps counted each time): a box
 * is worth asking for on a part of the photo, and eight boxes over the whole photo are the
 * photo's work eight times over.
 */
export const MAX_REGIONS_AREA = 1
/** A box's shortest side, in pixels: a smaller one gives the model too little to see. */
export const MIN_REGION_SIDE = 16
/** Longest `regions` text: eight boxes of large numbers fit with room. */
export const MAX_REGIONS_LENGTH = 2000

export interface RegionBox {
  x: number
  y: number
  width: number
  height: number
}

const coordinate = z.number().int().min(0).max(1_000_000)
const side = z.number().int().min(MIN_REGION_SIDE, `a box is at least ${MIN_REGION_SIDE}×${MIN_REGION_SIDE} pixels`).max(1_000_000)

export const regionsSchema = z
  .array(z.strictObject({ x: coordinate, y: coordinate, width: side, height: side }))
  .max(MAX_REGIONS, `at most ${MAX_REGIONS} boxes`)

export type RegionsParse = { ok: true; boxes: RegionBox[] } | { ok: false; issue: string }

/** The field's value (JSON text, or the array itself in a JSON body or over IPC) as boxes, or the first problem. */
export function parseRegions(value: string | unknown[]): RegionsParse {
  let json: unknown = value
  if (typeof value === 'string') {
    if (value.length > MAX_REGIONS_LENGTH) return { ok: false, issue: `longer than ${MAX_REGIONS_LENGTH} characters (${value.length})` }
    try {
      json = JSON.parse(value)
    } catch {
      return { ok: false, issue: 'expected a JSON array of boxes {"x", "y", "width", "height"}' }
    }
  }
  const parsed = regionsSchema.safeParse(json)
  if (parsed.success) return { ok: true, boxes: parsed.data }
  const first = parsed.error.issues[0]!
  const where = first.path.length > 0 ? `${first.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}: ` : ''
  return {
    ok: false,
    issue: `${where}${first.code === 'invalid_type' && first.path.length === 0 ? 'expected a JSON array of boxes {"x", "y", "width", "height"}' : first.message}`
  }
}
