/**
 * The look-again boxes of an upload against its image, once its upright size is known: the
 * second of their two checks (the syntax is `shared/regions.ts`, with the other fields). Jobs
 * and the touch-up preview bound them alike.
 */
import { MAX_REGIONS_AREA, MIN_REGION_SIDE, type RegionBox } from '../../../shared/regions'
import { EngineError } from '../errors'

/**
 * The boxes on a width × height image: each clipped to the image; a box that starts outside
 * it, or keeps less than `MIN_REGION_SIDE` pixels on a side once clipped, is the problem named,
 * and so are clipped boxes covering more than `MAX_REGIONS_AREA` times the image between them.
 */
function fitRegions(
  boxes: readonly RegionBox[],
  width: number,
  height: number
): { ok: true; boxes: RegionBox[] } | { ok: false; issue: string } {
  const out: RegionBox[] = []
  for (const [i, b] of boxes.entries()) {
    const w = Math.min(b.width, width - b.x)
    const h = Math.min(b.height, height - b.y)
    if (w < MIN_REGION_SIDE || h < MIN_REGION_SIDE) {
      return {
        ok: false,
        issue: `[${i}]: the box lies outside the ${width}×${height} image, or keeps less than ${MIN_REGION_SIDE} pixels on a side inside it`
      }
    }
    out.push({ x: b.x, y: b.y, width: w, height: h })
  }
  const covered = out.reduce((n, b) => n + b.width * b.height, 0)
  const most = MAX_REGIONS_AREA * width * height
  if (covered > most) {
    const pixels = (n: number): string => n.toLocaleString('en-US')
    return {
      ok: false,
      issue: `the boxes cover ${pixels(covered)} pixels between them, over the ${pixels(most)} of the ${width}×${height} image they may cover together (overlaps count each time); use fewer or smaller boxes`
    }
  }
  return { ok: true, boxes: out }
}

/** The boxes clipped to the image's upright size; a box outside it is refused (`validation_failed` naming `regions`). */
export function checkRegions(boxes: readonly RegionBox[], image: { width: number; height: number }): RegionBox[] {
  const fitted = fitRegions(boxes, image.width, image.height)
  if (!fitted.ok)
    throw new EngineError('validation_failed', 'The look-again boxes cannot be used.', {
      details: [{ field: 'regions', issue: fitted.issue }]
    })
  return fitted.boxes
}
