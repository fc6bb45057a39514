/**
 * The second look's composites (docs/pipeline.md, "Second look"): each corpus subject (its
 * reference cutout's alpha is the composite's true alpha) at a third, a sixth and a twelfth of
 * the frame on a busy, sharp photo with no subject of its own, and filling the frame on a busy
 * photo and on a soft one (another corpus photo blurred). The subjects are split as the review
 * benchmark splits them (`reviewSubjects`: SPLIT_SEED, HELD_ASIDE): what the second look's rule
 * was fitted on is the fit part; the held-aside part scores it.
 */
import { basename, extname } from 'node:path'
import sharp from 'sharp'
import { background, composite, loadCutout, subjectBox, type Rgba, type Scene } from './quality-scenes'
import { busyPhoto, mirrored, reviewSubjects, xorshift, type Part } from './review-scenes'

export interface SizeScene {
  scene: Scene
  /** `third/busy`, `sixth/busy`, `twelfth/busy`, `full/busy`, `full/soft`. */
  family: string
  group: string
  part: Part
}

const FRAME = { width: 1200, height: 900 }

/** The subject's box over the frame (its larger share of the two sides), and its background. */
export const SIZE_FAMILIES: Array<{ family: string; share: number; busy: boolean }> = [
  { family: 'third/busy', share: 1 / 3, busy: true },
  { family: 'sixth/busy', share: 1 / 6, busy: true },
  { family: 'twelfth/busy', share: 1 / 12, busy: true },
  { family: 'full/busy', share: 0.9, busy: true },
  { family: 'full/soft', share: 0.9, busy: false }
]

export async function* sizeComposites(refDir: string, photos: string[], limit?: number): AsyncGenerator<SizeScene> {
  const subjects = reviewSubjects(refDir, photos, limit)
  for (const s of [...subjects.filter((m) => m.part === 'held-aside'), ...subjects.filter((m) => m.part === 'fit')]) {
    const cut = await loadCutout(s.file)
    const others = photos.filter((p) => basename(p, extname(p)) !== s.group)
    const other = others[(s.index + 5) % others.length]!
    const busy = await busyPhoto(photos, refDir, other)
    const rand = xorshift(4000 + s.index)
    for (const [k, f] of SIZE_FAMILIES.entries()) {
      const frame = await place(cut, f.share, rand)
      const bg = f.busy
        ? mirrored(busy, frame.width, frame.height)
        : await background('blurred-photo', frame.width, frame.height, frame, other, 10 * s.index + k)
      const name = `${basename(s.file, '.png')}@${f.family}`
      yield { family: f.family, group: s.group, part: s.part, scene: composite(name, f.family, frame, bg) }
    }
  }
}

/** The subject's box scaled so its larger share of the frame's sides is `share`, at a seeded place where it fits. */
async function place(cut: Rgba, share: number, rand: () => number): Promise<Rgba> {
  const { width, height } = FRAME
  const box = subjectBox(cut)
  const s = share * Math.min(width / box.width, height / box.height)
  const sw = Math.max(1, Math.round(box.width * s))
  const sh = Math.max(1, Math.round(box.height * s))
  const sub = await sharp(cut.data, { raw: { width: cut.width, height: cut.height, channels: 4 } })
    .extract({ left: box.x0, top: box.y0, width: box.width, height: box.height })
    .resize(sw, sh, { fit: 'fill' })
    .raw()
    .toBuffer()
  const x = Math.round(rand() * (width - sw))
  const y = Math.round(rand() * (height - sh))
  const data = Buffer.alloc(width * height * 4)
  for (let r = 0; r < sh; r++) sub.copy(data, ((y + r) * width + x) * 4, r * sw * 4, (r + 1) * sw * 4)
  return { data, width, height }
}
