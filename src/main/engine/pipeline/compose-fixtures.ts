/**
 * Photos and masks drawn in code for the compose, shadow and PSD tests (no model): a grey
 * photo with a red rectangle, and the mask a perfect segmenter would give for it.
 */
import { parseParams, resolveParams } from '../../../shared/params'
import type { JobParams } from '../../../shared/params-types'
import { builtinPreset } from '../../../shared/presets'
import { composeVariations, type ComposeResult } from './compose'
import type { DecodedImage } from './decode'
import type { Rect } from './placement'

export const RED = [200, 30, 40, 255] as const
export const GREY = [120, 130, 140, 255] as const

/** A w×h photo: grey, with an opaque red rectangle `rect` (the subject). */
export function photo(width: number, height: number, rect: Rect): DecodedImage {
  const data = Buffer.alloc(width * height * 4)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const inside = x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height
      data.set(inside ? RED : GREY, (y * width + x) * 4)
    }
  return { data, width, height, channels: 4, hasAlpha: false, warnings: [] }
}

/** The mask a perfect segmenter gives for `photo`: 255 inside `rect`. */
export function rectMask(width: number, height: number, rect: Rect | null): Buffer {
  const mask = Buffer.alloc(width * height)
  if (rect) for (let y = rect.y; y < rect.y + rect.height; y++) mask.fill(255, y * width + rect.x, y * width + rect.x + rect.width)
  return mask
}

/** The resolved set of `mode` with `text` (presets: the built-ins; '' for none). */
export function paramsOf(text: string, mode: 'clipping' | 'background' | 'params' = 'params'): JobParams {
  const parsed = text === '' ? null : parseParams(text)
  if (parsed && !parsed.ok) throw new Error(JSON.stringify(parsed.details))
  const r = resolveParams(mode, parsed ? parsed.value : null, (n) => builtinPreset(n)?.values ?? null)
  if (!r.ok) throw new Error(JSON.stringify(r.details))
  return r.value
}

export async function composeRect(width: number, height: number, rect: Rect | null, params: JobParams, layers = false): Promise<ComposeResult> {
  const image = photo(width, height, rect ?? { x: 0, y: 0, width: 0, height: 0 })
  return composeVariations(image, { alpha: rectMask(width, height, rect), foreground: image.data }, params, { layers })
}

