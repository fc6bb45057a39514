/**
 * The review benchmark's composites (docs/review.md, "How it was fitted and validated"), made in
 * code from the corpus' reference cutouts (their alpha is the composite's true alpha, whatever
 * model made it) and the corpus photos:
 *
 * - per subject (one reference cutout per corpus photo), DRAWS times, SCENES: the subject at every size — filling
 *   the frame, cut by it, a half, a quarter, a few percent of it, next to another subject — over
 *   plain studio colours, gradients, blurred photos, busy sharp photos without a subject of their
 *   own, noise and clutter, and once seen through (its alpha at GLASS: glass, a veil, a
 *   shadow-like subject); and once over another photo with its own subject (SECOND_SUBJECT);
 * - `empty/<texture>`: no subject at all: noise, clutter, a gradient, plain colours, and the
 *   parts of corpus photos that their reference cutout leaves out entirely (a background alone).
 *
 * Each composite belongs to the **fit** part or the **held-aside** part: the subjects are shuffled
 * with SPLIT_SEED and the first HELD_ASIDE of them, with every composite they appear in, are held
 * aside; the no-subject composites alternate. A subject is never in both parts (a pair takes its
 * second subject from its own part), so the held-aside figures are measured on subjects the fit
 * never saw.
 */
import { readdirSync } from 'node:fs'
import { basename, extname, join } from 'node:path'
import sharp from 'sharp'
import { background, composite, loadCutout, subjectBox, type Family, type Rgba, type Scene } from './quality-scenes'

export type Part = 'fit' | 'held-aside'

export interface ReviewScene {
  scene: Scene
  /** `<size>/<background>` (`medium/busy-photo`), or `empty/<texture>`. */
  kind: string
  /** The corpus photo whose subject it shows (cross-validation folds), or `empty`. */
  group: string
  part: Part
}

/** The subjects' shuffle and how many of them are held aside. */
export const SPLIT_SEED = 31
export const HELD_ASIDE = 5
/** The frame's long side; its orientation follows the subject's box. */
const FRAME = 1200
/** The see-through subject's opacity. */
const GLASS = 0.6
/** Plain studio backgrounds: white, light grey, paper, charcoal. */
const STUDIO = [
  [246, 246, 246],
  [214, 216, 220],
  [236, 228, 212],
  [44, 46, 52]
]

type Ground = Family | 'plain' | 'other-subject' | 'busy-photo' | 'clutter'
interface SceneSpec {
  size: string
  ground: Ground
  /** The subject's box over the largest that fits the frame (above 1: cut by the frame). */
  share: number
  /** Where the subject's centre goes, as fractions of the frame; null: a seeded place where it fits. */
  at: [number, number] | null
  opacity?: number
  pair?: boolean
}

const SCENES: SceneSpec[] = [
  { size: 'large', ground: 'plain', share: 0.85, at: [0.5, 0.5] },
  { size: 'cut', ground: 'blurred-photo', share: 1.3, at: [0.5, 0.62] },
  { size: 'medium', ground: 'gradient', share: 0.55, at: null },
  // Another corpus photo whole, its own subject included: two subjects, one of them true.
  { size: 'medium', ground: 'other-subject', share: 0.55, at: null },
  { size: 'glass', ground: 'noise', share: 0.55, at: null, opacity: GLASS },
  { size: 'small', ground: 'clutter', share: 0.25, at: null },
  { size: 'small', ground: 'blurred-photo', share: 0.22, at: null },
  { size: 'tiny', ground: 'plain', share: 0.08, at: null },
  { size: 'pair', ground: 'plain', share: 0.45, at: null, pair: true },
  // Last, so that the scenes before it draw the same places as before it was added.
  { size: 'medium', ground: 'busy-photo', share: 0.55, at: null }
]

/**
 * The scene whose truth is ambiguous: the photo behind the subject has a subject of its own (an
 * elephant, a car, a person), which a cutout that keeps it is not wrong to keep, and which no
 * cutout of the photo alone could tell from the one pasted. Its composites are measured and
 * reported (`second_subject`), not counted in either class.
 */
export const SECOND_SUBJECT = 'medium/other-subject'

const TEXTURE = { width: 1200, height: 900 }
/** A background crop: reference alpha at most this everywhere (3 %), and at least this share of the photo. */
const EMPTY_ALPHA = 8
const EMPTY_MIN_SHARE = 0.15
const EMPTY_MIN_SIDE = 160

export interface Subject {
  group: string
  file: string
  index: number
  part: Part
}

/** One reference cutout per corpus photo (`<photo>.u2net.png`, else the first by name), split into the two parts. */
export function reviewSubjects(refDir: string, photos: string[], limit?: number): Subject[] {
  const refs = readdirSync(refDir).filter((f) => f.endsWith('.png'))
  const found = photos.flatMap((photo) => {
    const base = basename(photo, extname(photo))
    const mine = refs.filter((f) => f.startsWith(`${base}.`)).sort()
    const file = mine.find((f) => f === `${base}.u2net.png`) ?? mine[0]
    return file ? [{ group: base, file: join(refDir, file) }] : []
  })
  const order = found.map((_, i) => i)
  const rand = xorshift(SPLIT_SEED)
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[order[i], order[j]] = [order[j]!, order[i]!]
  }
  const aside = new Set(order.slice(0, HELD_ASIDE))
  return found.slice(0, limit).map((s, index) => ({
    ...s,
    index,
    part: aside.has(index) ? 'held-aside' : 'fit'
  }))
}

/** Draws of every subject's scenes: 2 doubles the composites that 1 gives, so one cutout moves a rate less. */
export const DRAWS = 2

/** The photo behind a subject's photo scenes in `draw`: another corpus photo, a different one per draw. */
function otherPhoto(photos: string[], s: Subject, draw: number): string {
  const others = photos.filter((p) => basename(p, extname(p)) !== s.group)
  return others[(s.index + 3 * draw) % Math.max(1, others.length)]!
}

export async function* reviewComposites(refDir: string, photos: string[], limit?: number, draws = DRAWS): AsyncGenerator<ReviewScene> {
  const subjects = reviewSubjects(refDir, photos, limit)
  // The held-aside part first: its figures are the ones the levels are judged by.
  for (const s of [...subjects.filter((m) => m.part === 'held-aside'), ...subjects.filter((m) => m.part === 'fit')]) {
    const cut = await loadCutout(s.file)
    const mates = subjects.filter((m) => m.part === s.part)
    const mate = mates[(mates.indexOf(s) + 1) % mates.length]!
    for (let draw = 0; draw < draws; draw++) {
      // Draw 0 is the set the score was first fitted on; each further draw places the subject
      // anew, on another studio colour, texture and photo.
      const rand = xorshift(1000 + s.index + 7919 * draw)
      const other = otherPhoto(photos, s, draw)
      const busy = await busyPhoto(photos, refDir, other)
      const name = basename(s.file, '.png') + (draw === 0 ? '' : `~${draw + 1}`)
      for (const [k, spec] of SCENES.entries()) {
        const second = spec.pair && mate !== s ? await loadCutout(mate.file) : null
        const frame = await sceneFrame(cut, second, spec, rand)
        const seed = 100 * s.index + k + 1 + 10_000 * draw
        const bg = await ground(spec.ground, frame, other, busy, seed, s.index + k + draw)
        const kind = `${spec.size}/${spec.ground}`
        yield { kind, group: s.group, part: s.part, scene: composite(name, kind, frame, bg) }
      }
    }
  }
  let n = 0
  for await (const scene of emptyComposites(refDir, photos))
    yield { kind: scene.family, group: 'empty', part: n++ % 2 === 0 ? 'fit' : 'held-aside', scene }
}

/** The subject (and a second one for a pair, side by side) placed in a transparent frame as the spec says. */
async function sceneFrame(cut: Rgba, second: Rgba | null, spec: SceneSpec, rand: () => number): Promise<Rgba> {
  const box = subjectBox(cut)
  const landscape = second !== null || box.width >= box.height
  const width = landscape ? FRAME : Math.round(FRAME * 0.75)
  const height = landscape ? Math.round(FRAME * 0.75) : FRAME
  const frame: Rgba = { data: Buffer.alloc(width * height * 4), width, height }
  const slots: Array<[Rgba, number, number]> = second
    ? [
        [cut, width / 2, 0.28],
        [second, width / 2, 0.72]
      ]
    : [[cut, width, -1]]
  for (const [subject, slotWidth, slotCentre] of slots) {
    const sub = await scaled(subject, slotWidth, height, spec.share)
    let cx: number
    let cy: number
    if (spec.at) [cx, cy] = [spec.at[0] * width, spec.at[1] * height]
    else {
      const free = (room: number, side: number): number => side / 2 + rand() * Math.max(0, room - side)
      cx = slotCentre >= 0 ? slotCentre * width : free(width, sub.width)
      cy = free(height, sub.height)
    }
    paste(frame, sub, Math.round(cx - sub.width / 2), Math.round(cy - sub.height / 2), spec.opacity ?? 1)
  }
  return frame
}

/** The subject's box scaled (premultiplied, by sharp) to `share` of the largest size that fits width × height. */
export async function scaled(cut: Rgba, width: number, height: number, share: number): Promise<Rgba> {
  const box = subjectBox(cut)
  const s = share * Math.min(width / box.width, height / box.height)
  const sw = Math.max(1, Math.round(box.width * s))
  const sh = Math.max(1, Math.round(box.height * s))
  const data = await sharp(cut.data, { raw: { width: cut.width, height: cut.height, channels: 4 } })
    .extract({ left: box.x0, top: box.y0, width: box.width, height: box.height })
    .resize(sw, sh, { fit: 'fill' })
    .raw()
    .toBuffer()
  return { data, width: sw, height: sh }
}

/** `sub` into `frame` at (x, y), clipped to it, its alpha times `opacity`; pixels it does not cover stay as they were. */
function paste(frame: Rgba, sub: Rgba, x: number, y: number, opacity: number): void {
  for (let sy = Math.max(0, -y); sy < sub.height && y + sy < frame.height; sy++)
    for (let sx = Math.max(0, -x); sx < sub.width && x + sx < frame.width; sx++) {
      const from = (sy * sub.width + sx) * 4
      const a = Math.round(sub.data[from + 3]! * opacity)
      if (a === 0) continue
      const to = ((y + sy) * frame.width + x + sx) * 4
      sub.data.copy(frame.data, to, from, from + 3)
      frame.data[to + 3] = a
    }
}

async function ground(kind: Ground, frame: Rgba, other: string, busy: Rgb, seed: number, k: number): Promise<Buffer> {
  const { width, height } = frame
  if (kind === 'busy-photo') return mirrored(busy, width, height)
  if (kind === 'plain') return plain(width, height, STUDIO[k % STUDIO.length]!)
  if (kind === 'other-subject') return photoBackground(other, width, height)
  if (kind === 'clutter') return clutter(width, height, seed)
  return background(kind, width, height, frame, other, seed)
}

/**
 * A busy, sharp photo with no subject: the part of a corpus photo that its reference cutout leaves
 * out (`backgroundCrop`: houses, a field, trees, a street), of `other` or, when it has none (or
 * `accept` refuses it), of the next photo that has one.
 */
export async function busyPhoto(
  photos: string[],
  refDir: string,
  other: string,
  accept: (crop: Rgb & { name: string }) => Promise<boolean> = async () => true
): Promise<Rgb & { name: string }> {
  const from = photos.indexOf(other)
  for (let i = 0; i < photos.length; i++) {
    const crop = await backgroundCrop(photos[(from + i) % photos.length]!, refDir)
    if (crop && (await accept(crop))) return crop
  }
  throw new Error('no corpus photo has a part without its subject')
}

export type Rgb = { rgb: Buffer; width: number; height: number }

/** `crop` at its own scale, mirrored to cover width × height (so it stays as sharp as the photo). */
export function mirrored(crop: Rgb, width: number, height: number): Buffer {
  const out = Buffer.alloc(width * height * 3)
  const fold = (v: number, n: number): number => {
    const m = v % (2 * n)
    return m < n ? m : 2 * n - 1 - m
  }
  for (let y = 0; y < height; y++) {
    const sy = fold(y, crop.height)
    for (let x = 0; x < width; x++)
      crop.rgb.copy(out, (y * width + x) * 3, (sy * crop.width + fold(x, crop.width)) * 3, (sy * crop.width + fold(x, crop.width)) * 3 + 3)
  }
  return out
}

/** The composites with no subject, as the fit and the held-aside parts share them out. */
async function* emptyComposites(refDir: string, photos: string[]): AsyncGenerator<Scene> {
  const { width, height } = TEXTURE
  const none: Rgba = { data: Buffer.alloc(width * height * 4), width, height }
  const textures: Array<[string, Buffer]> = []
  for (const seed of [1, 2, 3]) textures.push([`noise-${seed}`, await background('noise', width, height, none, '', 500 + seed)])
  for (const seed of [1, 2, 3]) textures.push([`clutter-${seed}`, await clutter(width, height, 600 + seed)])
  textures.push(['gradient', await background('gradient', width, height, none, '', 0)])
  textures.push(['grey', plain(width, height, [128, 128, 128])])
  textures.push(['paper', plain(width, height, [236, 228, 212])])
  for (const [label, bg] of textures) yield composite(label, `empty/${label}`, none, bg)
  for (const photo of photos) {
    const crop = await backgroundCrop(photo, refDir)
    if (crop)
      yield composite(
        crop.name,
        'empty/photo',
        { data: Buffer.alloc(crop.width * crop.height * 4), width: crop.width, height: crop.height },
        crop.rgb
      )
  }
}

/** Another corpus photo as it is, covering the frame. */
export function photoBackground(photo: string, width: number, height: number): Promise<Buffer> {
  return sharp(photo).removeAlpha().resize(width, height, { fit: 'cover' }).raw().toBuffer()
}

export function plain(width: number, height: number, colour: number[]): Buffer {
  const out = Buffer.alloc(width * height * 3)
  for (let i = 0; i < width * height; i++) out.set(colour, i * 3)
  return out
}

export function xorshift(seed: number): () => number {
  let s = seed >>> 0 || 1
  return () => {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    return (s >>> 0) / 4294967296
  }
}

/** Value noise under random rectangles, discs and striped rectangles of random colours. */
export async function clutter(width: number, height: number, seed: number): Promise<Buffer> {
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

/**
 * The largest strip along one edge of a corpus photo that its reference cutout leaves out
 * entirely (alpha ≤ EMPTY_ALPHA), as RGB; null when none is big enough. Small strips are
 * doubled so the model sees more than a thumbnail.
 */
function backgroundCrop(photo: string, refDir: string): Promise<(Rgb & { name: string }) | null> {
  // Made once per photo: the busy-photo scenes of every subject and the no-subject frames share it.
  const key = `${refDir}\0${photo}`
  const kept = crops.get(key)
  if (kept) return kept
  const made = findBackgroundCrop(photo, refDir)
  crops.set(key, made)
  return made
}
const crops = new Map<string, Promise<(Rgb & { name: string }) | null>>()

async function findBackgroundCrop(photo: string, refDir: string): Promise<(Rgb & { name: string }) | null> {
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
