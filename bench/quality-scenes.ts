/**
 * Composites with a known answer for the quality benchmark: a reference cutout (RGBA: its alpha
 * is the true alpha, its colours the true foreground) laid over a background generated in code,
 * I = αF + (1−α)B, rounded to bytes.
 *
 * Background families: a two-colour gradient, another photo of the corpus blurred (a shallow
 * depth of field), multi-octave value noise (clutter), and a plain colour contrasting with the
 * subject. "Small" scenes put the subject, scaled so its box's long side is SMALL_SIDE, in a
 * frame four times its box each way (a subject on ~6 % of the frame).
 */
import { readdirSync } from 'node:fs'
import { basename, join } from 'node:path'
import sharp from 'sharp'
import type { KnownAnswer } from './quality-metrics'

export interface Scene extends KnownAnswer {
  name: string
  family: string
  /** The composite: RGBA, opaque. */
  image: Buffer
}

export type Family = 'gradient' | 'blurred-photo' | 'noise' | 'contrast'
export const FAMILIES: Family[] = ['gradient', 'blurred-photo', 'noise', 'contrast']

const SMALL_SIDE = 420
const SMALL_FRAME = 4

export interface Rgba {
  data: Buffer
  width: number
  height: number
}

export async function loadCutout(file: string): Promise<Rgba> {
  const { data, info } = await sharp(file).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  return { data, width: info.width, height: info.height }
}

/** A background of `family`, width × height RGB. `photo` is another corpus photo (blurred-photo). */
export async function background(
  family: Family,
  width: number,
  height: number,
  subject: Rgba,
  photo: string,
  seed: number
): Promise<Buffer> {
  const n = width * height
  const out = Buffer.alloc(n * 3)
  if (family === 'gradient') {
    const a = [30, 60, 140]
    const b = [240, 200, 120]
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const t = (x / width + y / height) / 2
        for (let c = 0; c < 3; c++) out[(y * width + x) * 3 + c] = Math.round(a[c]! + (b[c]! - a[c]!) * t)
      }
    return out
  }
  if (family === 'blurred-photo') {
    const sigma = Math.max(2, Math.max(width, height) / 100)
    return sharp(photo).removeAlpha().resize(width, height, { fit: 'cover' }).blur(sigma).raw().toBuffer()
  }
  if (family === 'noise') {
    const octaves = [
      { cell: 96, weight: 0.55 },
      { cell: 24, weight: 0.3 },
      { cell: 5, weight: 0.15 }
    ]
    const grids = octaves.map((o) => ({ ...o, gw: Math.ceil(width / o.cell) + 2, gh: Math.ceil(height / o.cell) + 2 }))
    let s = seed >>> 0 || 1
    const rand = (): number => {
      s ^= s << 13
      s ^= s >>> 17
      s ^= s << 5
      return (s >>> 0) / 4294967296
    }
    const values = grids.map((g) => Float32Array.from({ length: g.gw * g.gh * 3 }, () => rand()))
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const px = [0, 0, 0]
        grids.forEach((g, k) => {
          const fx = x / g.cell
          const fy = y / g.cell
          const x0 = Math.floor(fx)
          const y0 = Math.floor(fy)
          const wx = fx - x0
          const wy = fy - y0
          const v = values[k]!
          for (let c = 0; c < 3; c++) {
            const at = (xx: number, yy: number): number => v[(yy * g.gw + xx) * 3 + c]!
            const top = at(x0, y0) * (1 - wx) + at(x0 + 1, y0) * wx
            const bottom = at(x0, y0 + 1) * (1 - wx) + at(x0 + 1, y0 + 1) * wx
            px[c]! += g.weight * (top * (1 - wy) + bottom * wy)
          }
        })
        for (let c = 0; c < 3; c++) out[(y * width + x) * 3 + c] = Math.round(Math.min(1, Math.max(0, px[c]!)) * 255)
      }
    return out
  }
  // contrast: the complement of the subject's mean colour, pushed away from mid-grey.
  const mean = [0, 0, 0]
  let w = 0
  for (let i = 0; i < subject.width * subject.height; i++) {
    const a = subject.data[i * 4 + 3]! / 255
    for (let c = 0; c < 3; c++) mean[c]! += a * subject.data[i * 4 + c]!
    w += a
  }
  const colour = mean.map((m) => {
    const v = 255 - m / Math.max(1, w)
    return Math.round(v < 128 ? v * 0.5 : 255 - (255 - v) * 0.5)
  })
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) out[i * 3 + c] = colour[c]!
  return out
}

/** The cutout over `bg` (same size): the composite and its known answer. */
export function composite(name: string, family: string, cut: Rgba, bg: Buffer): Scene {
  const { width, height } = cut
  const n = width * height
  const image = Buffer.alloc(n * 4)
  const alpha = Buffer.alloc(n)
  const fg = Buffer.alloc(n * 3)
  for (let i = 0; i < n; i++) {
    const a = cut.data[i * 4 + 3]!
    alpha[i] = a
    for (let c = 0; c < 3; c++) {
      const f = cut.data[i * 4 + c]!
      fg[i * 3 + c] = f
      image[i * 4 + c] = Math.round((a * f + (255 - a) * bg[i * 3 + c]!) / 255)
    }
    image[i * 4 + 3] = 255
  }
  return { name, family, width, height, image, alpha, fg, bg }
}

/** A reference cutout of the corpus, with the other corpus photo its scenes use. */
export interface ReferenceCutout {
  /** The reference's file name without `.png` (`girl-2.u2net`). */
  name: string
  file: string
  /** Its place in the sorted list (seeds the generated backgrounds). */
  index: number
  /** A corpus photo of another subject (the blurred-photo background). */
  other: string
}

/** Every reference cutout of `refDir` but the same-weights `isnet-general-use` one, sorted by name. */
export function referenceCutouts(refDir: string, photos: string[], limit?: number): ReferenceCutout[] {
  return readdirSync(refDir)
    .filter((f) => f.endsWith('.png') && !f.includes('isnet-general-use'))
    .sort()
    .slice(0, limit)
    .map((f, k) => ({
      name: f.slice(0, -4),
      file: join(refDir, f),
      index: k,
      other: photos.filter((p) => !basename(p).startsWith(f.split('.')[0]!))[k % Math.max(1, photos.length - 1)]!
    }))
}

/**
 * The quality benchmark's composites in order: each reference cutout over every family, then
 * (with `small`) its small-subject scene, on noise or a blurred photo in turn.
 */
export async function* qualityComposites(
  refDir: string,
  photos: string[],
  opts: { limit?: number; small: boolean }
): AsyncGenerator<{ scene: Scene; small: boolean }> {
  for (const { name, file, index: k, other } of referenceCutouts(refDir, photos, opts.limit)) {
    const cut = await loadCutout(file)
    for (const family of FAMILIES)
      yield { scene: composite(name, family, cut, await background(family, cut.width, cut.height, cut, other, k + 1)), small: false }
    if (opts.small) {
      const small = await smallCutout(cut)
      const family = k % 2 === 0 ? 'noise' : 'blurred-photo'
      yield {
        scene: composite(name, `small/${family}`, small, await background(family, small.width, small.height, small, other, 100 + k)),
        small: true
      }
    }
  }
}

/**
 * The cutout cropped to its subject's box, scaled (premultiplied, by sharp) so the box's long
 * side is `side`, and placed at (`left`, `top`) (fractions of the frame) in a transparent frame
 * `frame`× the box each way; by default right of centre in a frame SMALL_FRAME× a SMALL_SIDE box.
 */
export async function smallCutout(cut: Rgba, side = SMALL_SIDE, frame = SMALL_FRAME, left = 0.55, top = 0.3): Promise<Rgba> {
  const { x0, y0, width: bw, height: bh } = subjectBox(cut)
  const s = side / Math.max(bw, bh)
  const sw = Math.max(1, Math.round(bw * s))
  const sh = Math.max(1, Math.round(bh * s))
  const scaled = await sharp(cut.data, { raw: { width: cut.width, height: cut.height, channels: 4 } })
    .extract({ left: x0, top: y0, width: bw, height: bh })
    .resize(sw, sh, { fit: 'fill' })
    .raw()
    .toBuffer()
  const width = sw * frame
  const height = sh * frame
  const data = Buffer.alloc(width * height * 4)
  const px = Math.round(width * left)
  const py = Math.round(height * top)
  for (let y = 0; y < sh; y++) scaled.copy(data, ((py + y) * width + px) * 4, y * sw * 4, (y + 1) * sw * 4)
  return { data, width, height }
}

/** The box of the cutout's pixels with any alpha (the whole frame when there are none). */
export function subjectBox(cut: Rgba): { x0: number; y0: number; width: number; height: number } {
  let x0 = cut.width
  let y0 = cut.height
  let x1 = -1
  let y1 = -1
  for (let y = 0; y < cut.height; y++)
    for (let x = 0; x < cut.width; x++)
      if (cut.data[(y * cut.width + x) * 4 + 3]! > 0) {
        x0 = Math.min(x0, x)
        x1 = Math.max(x1, x)
        y0 = Math.min(y0, y)
        y1 = Math.max(y1, y)
      }
  if (x1 < 0) return { x0: 0, y0: 0, width: cut.width, height: cut.height }
  return { x0, y0, width: x1 - x0 + 1, height: y1 - y0 + 1 }
}
