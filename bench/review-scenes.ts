/**
 * Hard cases for the review benchmark, made in code from the same reference cutouts and corpus
 * photos as the quality benchmark's composites (`quality-scenes.ts`):
 *
 * - `tiny/<family>`: the subject scaled to a TINY_SIDE box in a frame TINY_FRAME× the box each
 *   way (the box is 2 % of the frame, the subject less), placed off centre.
 * - `busy/clutter`: value noise under a few dozen random rectangles, discs and stripes of random
 *   colours; `busy/photo`: another corpus photo, sharp (not blurred).
 * - `cut/<family>`: the subject with CUT_SHARE of its box beyond the left or right edge of the
 *   frame (and every third one beyond the bottom too).
 * - `empty/<texture>`: no subject at all: noise, clutter, a gradient, plain colours, and the
 *   parts of corpus photos that their reference cutout leaves out entirely (a background alone).
 */
import { basename, extname, join } from 'node:path'
import sharp from 'sharp'
import { background, composite, loadCutout, referenceCutouts, smallCutout, subjectBox, type Family, type Rgba, type Scene } from './quality-scenes'

export interface HardScene {
  scene: Scene
  /** `tiny`, `busy`, `cut` or `empty`. */
  kind: string
}

const TINY_SIDE = 200
const TINY_FRAME = 7
const CUT_SHARE = 0.4
const TEXTURE = { width: 1200, height: 900 }
/** A background crop: reference alpha at most this everywhere (3 %), and at least this share of the photo. */
const EMPTY_ALPHA = 8
const EMPTY_MIN_SHARE = 0.15
const EMPTY_MIN_SIDE = 160

const FAMILIES: Family[] = ['gradient', 'noise', 'blurred-photo', 'contrast']

export async function* hardComposites(refDir: string, photos: string[], limit?: number): AsyncGenerator<HardScene> {
  for (const { name, file, index: k, other } of referenceCutouts(refDir, photos, limit)) {
    const cut = await loadCutout(file)
    const tiny = await smallCutout(cut, TINY_SIDE, TINY_FRAME, [0.15, 0.6, 0.35, 0.75][k % 4]!, [0.2, 0.65, 0.45, 0.1][k % 4]!)
    const tf = FAMILIES[k % 4]!
    yield { kind: 'tiny', scene: composite(name, `tiny/${tf}`, tiny, await background(tf, tiny.width, tiny.height, tiny, other, 200 + k)) }
    yield { kind: 'busy', scene: composite(name, 'busy/clutter', cut, await clutter(cut.width, cut.height, 300 + k)) }
    yield { kind: 'busy', scene: composite(name, 'busy/photo', cut, await photoBackground(other, cut.width, cut.height)) }
    const cropped = cutByFrame(cut, k % 2 === 0 ? 'left' : 'right', k % 3 === 0)
    const cf = FAMILIES[(k + 1) % 4]!
    yield { kind: 'cut', scene: composite(name, `cut/${cf}`, cropped, await background(cf, cropped.width, cropped.height, cropped, other, 400 + k)) }
  }
  const { width, height } = TEXTURE
  const none: Rgba = { data: Buffer.alloc(width * height * 4), width, height }
  const textures: Array<[string, Buffer]> = []
  for (const seed of [1, 2, 3]) textures.push([`noise-${seed}`, await background('noise', width, height, none, '', 500 + seed)])
  for (const seed of [1, 2, 3]) textures.push([`clutter-${seed}`, await clutter(width, height, 600 + seed)])
  textures.push(['gradient', await background('gradient', width, height, none, '', 0)])
  textures.push(['grey', plain(width, height, [128, 128, 128])])
  textures.push(['paper', plain(width, height, [236, 228, 212])])
  for (const [label, bg] of textures) yield { kind: 'empty', scene: composite(label, `empty/${label}`, none, bg) }
  for (const photo of photos) {
    const crop = await backgroundCrop(photo, refDir)
    if (crop) yield { kind: 'empty', scene: composite(crop.name, 'empty/photo', { data: Buffer.alloc(crop.width * crop.height * 4), width: crop.width, height: crop.height }, crop.rgb) }
  }
}

/** Another corpus photo as it is, covering the frame. */
function photoBackground(photo: string, width: number, height: number): Promise<Buffer> {
  return sharp(photo).removeAlpha().resize(width, height, { fit: 'cover' }).raw().toBuffer()
}

function plain(width: number, height: number, colour: number[]): Buffer {
  const out = Buffer.alloc(width * height * 3)
  for (let i = 0; i < width * height; i++) out.set(colour, i * 3)
  return out
}

function xorshift(seed: number): () => number {
  let s = seed >>> 0 || 1
  return () => {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    return (s >>> 0) / 4294967296
  }
}

/** Value noise under random rectangles, discs and striped rectangles of random colours. */
async function clutter(width: number, height: number, seed: number): Promise<Buffer> {
  const out = await background('noise', width, height, { data: Buffer.alloc(0), width, height }, '', seed)
  const rand = xorshift(seed * 7919)
  const side = Math.min(width, height)
  const shapes = 40 + Math.floor(rand() * 30)
  for (let s = 0; s < shapes; s++) {
    const w = Math.max(4, Math.round(side * (0.03 + rand() * 0.25)))
    const h = Math.max(4, Math.round(side * (0.03 + rand() * 0.25)))
    const x0 = Math.floor(rand() * width) - (w >> 1)
    const y0 = Math.floor(rand() * height) - (h >> 1)
    const colour = [rand(), rand(), rand()].map((v) => Math.round(v * 255))
    const second = [rand(), rand(), rand()].map((v) => Math.round(v * 255))
    const kind = Math.floor(rand() * 3)
    const stripe = Math.max(2, Math.round(side * 0.01 * (1 + rand() * 3)))
    for (let y = Math.max(0, y0); y < Math.min(height, y0 + h); y++)
      for (let x = Math.max(0, x0); x < Math.min(width, x0 + w); x++) {
        if (kind === 1) {
          const dx = (x - x0 - w / 2) / (w / 2)
          const dy = (y - y0 - h / 2) / (h / 2)
          if (dx * dx + dy * dy > 1) continue
        }
        const c = kind === 2 && Math.floor((x + y) / stripe) % 2 === 1 ? second : colour
        out.set(c, (y * width + x) * 3)
      }
  }
  return out
}

/** The cutout with CUT_SHARE of its subject's box cut off on one side (and a quarter of it at the bottom). */
function cutByFrame(cut: Rgba, side: 'left' | 'right', bottom: boolean): Rgba {
  const box = subjectBox(cut)
  const off = Math.round(box.width * CUT_SHARE)
  const left = side === 'left' ? box.x0 + off : 0
  const right = side === 'left' ? cut.width : box.x0 + box.width - off
  const height = bottom ? box.y0 + Math.round(box.height * 0.75) : cut.height
  const width = right - left
  const data = Buffer.alloc(width * height * 4)
  for (let y = 0; y < height; y++) cut.data.copy(data, y * width * 4, (y * cut.width + left) * 4, (y * cut.width + right) * 4)
  return { data, width, height }
}

/**
 * The largest strip along one edge of a corpus photo that its reference cutout leaves out
 * entirely (alpha ≤ EMPTY_ALPHA), as RGB; null when none is big enough. Small strips are
 * doubled so the model sees more than a thumbnail.
 */
async function backgroundCrop(photo: string, refDir: string): Promise<{ name: string; rgb: Buffer; width: number; height: number } | null> {
  const base = basename(photo, extname(photo))
  const ref = join(refDir, `${base}.u2net.png`)
  let alpha: Buffer
  let width: number
  let height: number
  try {
    const r = await sharp(ref).ensureAlpha().extractChannel(3).raw().toBuffer({ resolveWithObject: true })
    alpha = r.data
    width = r.info.width
    height = r.info.height
  } catch {
    return null
  }
  const colMax = new Uint8Array(width)
  const rowMax = new Uint8Array(height)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const a = alpha[y * width + x]!
      if (a > colMax[x]!) colMax[x] = a
      if (a > rowMax[y]!) rowMax[y] = a
    }
  const run = (max: Uint8Array, reverse: boolean): number => {
    let n = 0
    for (let i = 0; i < max.length; i++) {
      if (max[reverse ? max.length - 1 - i : i]! > EMPTY_ALPHA) break
      n++
    }
    return n
  }
  const strips = [
    { left: 0, top: 0, width: run(colMax, false), height },
    { left: width - run(colMax, true), top: 0, width: run(colMax, true), height },
    { left: 0, top: 0, width, height: run(rowMax, false) },
    { left: 0, top: height - run(rowMax, true), width, height: run(rowMax, true) }
  ].sort((a, b) => b.width * b.height - a.width * a.height)
  const best = strips[0]!
  if (best.width * best.height < EMPTY_MIN_SHARE * width * height || Math.min(best.width, best.height) < EMPTY_MIN_SIDE) return null
  const scale = Math.max(best.width, best.height) < 500 ? 2 : 1
  const { data, info } = await sharp(photo)
    .removeAlpha()
    .extract(best)
    .resize(best.width * scale, best.height * scale)
    .raw()
    .toBuffer({ resolveWithObject: true })
  return { name: `${base}-background`, rgb: data, width: info.width, height: info.height }
}
