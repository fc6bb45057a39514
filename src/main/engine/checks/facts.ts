/**
 * What the store check reads of one image (docs/store-ready.md): its file (format, bytes,
 * colour space, transparency), its size, where its subject is and whether the photo's edge cuts
 * it, and how white its background is along the frame and around the subject. The pixels are
 * the decoded 8-bit sRGB RGBA the engine's sandbox gives; the subject comes from the model's
 * mask (a file of any origin) or from the job's framing (a file a job just wrote).
 */
import { alphaBounds, cutSides, type CutSides, type Rect } from '../pipeline/compose/placement'
import { within } from '../segment/mask/regions'

export type ColourSpace = 'srgb' | 'cmyk' | 'other-rgb' | 'grey'

/** Counts of pixels by their lowest channel (0–255): how many meet any whiteness threshold. */
export type Lightness = Uint32Array

export interface ImageFacts {
  /** The sniffed type of the bytes (`jpeg`, `png`…). */
  format: string
  bytes: number
  width: number
  height: number
  colourSpace: ColourSpace
  /** Transparent somewhere (a real alpha channel). */
  hasAlpha: boolean
  /** The subject's box on the frame; null: no subject found. */
  subject: Rect | null
  /** Sides of the frame that cut the subject. */
  cut: CutSides
  /** The frame's outermost pixels that are not the subject, by lowest channel. */
  border: Lightness
  /** The background around the subject (not beside its outline), by lowest channel. */
  behind: Lightness
  /** How far the job enlarged the subject (after a job); null: unknown (any file on disk). */
  enlargement: number | null
}

/** Share of a side's length kept clear beside the subject's outline when the background is read (JPEG ringing, soft edges). */
const OUTLINE_BAND = 0.01
/** Mask value from which a pixel is the subject for its box (the model's mask is soft at its edge). */
const BOX_ALPHA = 128

/** The share of counted pixels whose lowest channel is at least `min` (1 when none were counted). */
export function shareAtLeast(l: Lightness, min: number): number {
  let total = 0
  let meet = 0
  for (let v = 0; v < 256; v++) {
    total += l[v]!
    if (v >= min) meet += l[v]!
  }
  return total === 0 ? 1 : meet / total
}

/** Whether pixel i is the subject or beside it: the mask's subject pixels grown by `r` (`within`). */
function nearMask(mask: Uint8Array, width: number, height: number, r: number): Uint8Array {
  const subject = new Uint8Array(width * height)
  for (let i = 0; i < subject.length; i++) subject[i] = mask[i]! >= 16 ? 1 : 0
  return within(subject, width, height, r)
}

/** The box grown by `r` on every side, as a mask of the frame. */
function nearBox(box: Rect | null, width: number, height: number, r: number): Uint8Array {
  const near = new Uint8Array(width * height)
  if (!box) return near
  const x0 = Math.max(0, box.x - r)
  const x1 = Math.min(width, box.x + box.width + r)
  for (let y = Math.max(0, box.y - r); y < Math.min(height, box.y + box.height + r); y++) near.fill(1, y * width + x0, y * width + x1)
  return near
}

const lowest = (rgba: Buffer, p: number): number => Math.min(rgba[p * 4]!, rgba[p * 4 + 1]!, rgba[p * 4 + 2]!)

/** The border's and the background's lightness, everything `near` marks left out. */
function lightness(rgba: Buffer, width: number, height: number, near: Uint8Array): { border: Lightness; behind: Lightness } {
  const border = new Uint32Array(256)
  const behind = new Uint32Array(256)
  for (let y = 0; y < height; y++) {
    const edgeRow = y === 0 || y === height - 1
    for (let x = 0; x < width; x++) {
      const p = y * width + x
      if (near[p]) continue
      const v = lowest(rgba, p)
      if (edgeRow || x === 0 || x === width - 1) border[v]!++
      else behind[v]!++
    }
  }
  return { border, behind }
}

export interface FileFacts {
  format: string
  bytes: number
  colourSpace: ColourSpace
  hasAlpha: boolean
}

/** Facts of a picture whose subject is the model's mask (1 channel, the picture's size). */
export function factsFromMask(file: FileFacts, rgba: Buffer, width: number, height: number, mask: Uint8Array): ImageFacts {
  const r = Math.max(2, Math.round(Math.max(width, height) * OUTLINE_BAND))
  const subject = alphaBounds(mask, width, height, { threshold: BOX_ALPHA })
  // The border is read with the subject's own pixels left out, the background with a band beside them too.
  const { border } = lightness(rgba, width, height, nearMask(mask, width, height, 0))
  const { behind } = lightness(rgba, width, height, nearMask(mask, width, height, r))
  return { ...file, width, height, subject, cut: cutSides(mask, width, height), border, behind, enlargement: null }
}

/**
 * Facts of a picture a job framed: its subject is the framing's target box on the canvas, the
 * sides it touches are those the photo cut (the framing leaves a margin on every other side
 * unless asked for none), and the enlargement is the framing's scale.
 */
export function factsFromFraming(
  file: FileFacts,
  rgba: Buffer,
  width: number,
  height: number,
  framing: { source: Rect; target: Rect }
): ImageFacts {
  const { target, source } = framing
  const r = Math.max(2, Math.round(Math.max(width, height) * OUTLINE_BAND))
  const { border } = lightness(rgba, width, height, nearBox(target, width, height, 0))
  const { behind } = lightness(rgba, width, height, nearBox(target, width, height, r))
  const cut: CutSides = {
    top: target.y <= 0,
    left: target.x <= 0,
    bottom: target.y + target.height >= height,
    right: target.x + target.width >= width
  }
  const enlargement = Math.max(target.width / source.width, target.height / source.height)
  return { ...file, width, height, subject: target, cut, border, behind, enlargement }
}

/** Lowest channel under which a pixel is not white background, for `factsFromPixels`. */
const NOT_BACKGROUND = 250

/**
 * Facts of a picture a job composed without recording a framing (the photo kept as it was): the
 * subject is what is not background, a pixel darker than near-white or not mostly opaque.
 */
export function factsFromPixels(file: FileFacts, rgba: Buffer, width: number, height: number): ImageFacts {
  const mask = new Uint8Array(width * height)
  for (let p = 0; p < width * height; p++) if (rgba[p * 4 + 3]! >= 128 && lowest(rgba, p) < NOT_BACKGROUND) mask[p] = 255
  return factsFromMask(file, rgba, width, height, mask)
}
