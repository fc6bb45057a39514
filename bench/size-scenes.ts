/**
 * The second look's composites (docs/pipeline.md, "Second look"): each corpus subject (its
 * reference cutout's alpha is the composite's true alpha) at a third, a sixth and a twelfth of
 * the frame on a busy, sharp photo with no subject of its own, and filling the frame on a busy
 * photo and on a soft one (another corpus photo blurred). The subjects are split as the review
 * benchmark splits them (`reviewSubjects`: SPLIT_SEED, HELD_ASIDE): what the second look's rule
 * was fitted on is the fit part; the held-aside part scores it.
 *
 * "No subject of its own" is checked, not assumed: a busy photo is the part of a corpus photo its
 * u2net reference leaves out, and u2net leaves out things a model keeps (the other pots of the
 * plants shelf, a ceiling of lamps). So a background is one on which the model, run on the frame
 * without the subject, keeps at most BACKGROUND_KEEPS_AT_MOST of it (`subjectFree`). The
 * `/objects` families put the same subjects on the first busy photo that fails that check: a
 * harder case the families leave out (a subject among objects as sure as itself), kept
 * beside them so it stays measured.
 */
import { basename, extname } from 'node:path'
import type { DecodedImage } from '../src/main/engine/pipeline/decode/decode'
import type { MaskSource } from '../src/main/engine/segment/mask/types'
import { runView } from '../src/main/engine/segment/look/views'
import { background, composite, loadCutout, type Rgba, type Scene } from './quality-scenes'
import { busyPhoto, mirrored, reviewSubjects, scaled, xorshift, type Part, type Rgb } from './review-scenes'

export interface SizeScene {
  scene: Scene
  /** `third/busy`, `sixth/busy`, `twelfth/busy`, `full/busy`, `full/soft`. */
  family: string
  group: string
  part: Part
}

const FRAME = { width: 1200, height: 900 }

/**
 * The subject's box over the frame (its larger share of the two sides), and its background: a
 * busy photo with no subject of its own, the same with objects of its own (`objects`), or soft.
 */
export const SIZE_FAMILIES: Array<{ family: string; share: number; ground: 'busy' | 'objects' | 'soft' }> = [
  { family: 'third/busy', share: 1 / 3, ground: 'busy' },
  { family: 'sixth/busy', share: 1 / 6, ground: 'busy' },
  { family: 'twelfth/busy', share: 1 / 12, ground: 'busy' },
  { family: 'full/busy', share: 0.9, ground: 'busy' },
  { family: 'full/soft', share: 0.9, ground: 'soft' },
  { family: 'third/objects', share: 1 / 3, ground: 'objects' },
  { family: 'sixth/objects', share: 1 / 6, ground: 'objects' },
  { family: 'twelfth/objects', share: 1 / 12, ground: 'objects' }
]

/**
 * A busy photo holds no subject of its own when the model, on the frame it covers without a
 * subject, keeps at most this share (at ≥ 50 %). On the corpus's busy photos it keeps 0–5 % of
 * houses, trees, mountains and a lake, and 16–33 % of the plants shelf's other pots, a ceiling of
 * lamps, a city street and a forest's dark middle.
 */
export const BACKGROUND_KEEPS_AT_MOST = 0.1

export async function* sizeComposites(refDir: string, photos: string[], source: MaskSource, limit?: number): AsyncGenerator<SizeScene> {
  const subjects = reviewSubjects(refDir, photos, limit)
  for (const s of [...subjects.filter((m) => m.part === 'held-aside'), ...subjects.filter((m) => m.part === 'fit')]) {
    const cut = await loadCutout(s.file)
    const others = photos.filter((p) => basename(p, extname(p)) !== s.group)
    const other = others[(s.index + 5) % others.length]!
    const free = await busyPhoto(photos, refDir, other, (c) => subjectFree(c, source))
    const held = await busyPhoto(photos, refDir, other, async (c) => !(await subjectFree(c, source)))
    const rand = xorshift(4000 + s.index)
    for (const [k, f] of SIZE_FAMILIES.entries()) {
      const frame = await place(cut, f.share, rand)
      const bg =
        f.ground === 'soft'
          ? await background('blurred-photo', frame.width, frame.height, frame, other, 10 * s.index + k)
          : mirrored(f.ground === 'busy' ? free : held, frame.width, frame.height)
      const name = `${basename(s.file, '.png')}@${f.family}`
      yield { family: f.family, group: s.group, part: s.part, scene: composite(name, f.family, frame, bg) }
    }
  }
}

/** Whether the model keeps at most BACKGROUND_KEEPS_AT_MOST of `crop` mirrored over the frame (once per crop). */
function subjectFree(crop: Rgb & { name: string }, source: MaskSource): Promise<boolean> {
  let known = checked.get(crop.name)
  if (!known) {
    known = (async () => {
      const { width, height } = FRAME
      const rgb = mirrored(crop, width, height)
      const data = Buffer.alloc(width * height * 4, 255)
      for (let i = 0; i < width * height; i++) rgb.copy(data, i * 4, i * 3, i * 3 + 3)
      const image: DecodedImage = { data, width, height, channels: 4, hasAlpha: false, warnings: [] }
      const { mask } = await runView(image, { crop: { left: 0, top: 0, width, height }, mirror: false }, source)
      let kept = 0
      for (const v of mask.data) if (v >= 128) kept++
      return kept <= BACKGROUND_KEEPS_AT_MOST * mask.data.length
    })()
    checked.set(crop.name, known)
  }
  return known
}
const checked = new Map<string, Promise<boolean>>()

/** The subject's box scaled so its larger share of the frame's sides is `share`, at a seeded place where it fits. */
async function place(cut: Rgba, share: number, rand: () => number): Promise<Rgba> {
  const { width, height } = FRAME
  const { data: sub, width: sw, height: sh } = await scaled(cut, width, height, share)
  const x = Math.round(rand() * (width - sw))
  const y = Math.round(rand() * (height - sh))
  const data = Buffer.alloc(width * height * 4)
  for (let r = 0; r < sh; r++) sub.copy(data, ((y + r) * width + x) * 4, r * sw * 4, (r + 1) * sw * 4)
  return { data, width, height }
}
