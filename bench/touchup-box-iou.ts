/**
 * bench:touchup's check that a look-again box never makes a cutout worse where the box is
 * (docs/touch-up.md "Look again"): on composites with a known alpha (bench:quality's, from the
 * corpus' reference cutouts: a different subject and background family for each reference, the
 * small-subject scene among them; one reference per photo), the job's alpha is made without a box and with one, as a
 * job makes it (`computeAlpha`, `refine=edges`), and the IoU with the true alpha is measured
 * inside the box. Two boxes per composite, as a designer would draw them:
 *
 * - `error`: the third of the frame (of a 3 × 3 grid) where the cutout without a box is most
 *   wrong, the part a designer would ask the model to look at again;
 * - `subject`: the subject's box (the true alpha's), grown by 5 % each way; left out when it
 *   covers more than half the frame (the model would see about what it saw).
 *
 * Outside the box the result with it is the one without it, to the byte (`http-regions.test.ts`
 * checks that through the API); this counts `changed_outside` to show it here too.
 */
import { computeAlpha } from '../src/main/engine/pipeline/segment-and-refine'
import type { DecodedImage } from '../src/main/engine/pipeline/decode/decode'
import type { Segmenter } from '../src/main/engine/segment/mask/mask'
import { round } from './lib'
import { iou } from './quality-metrics'
import { qualityComposites, type Scene } from './quality-scenes'
import { maskSource } from './quality-source'

interface Box {
  x: number
  y: number
  width: number
  height: number
}

/** Families taken in turn, one per reference cutout (the fifth is the small-subject scene). */
const SCENES_PER_REFERENCE = 5

/** `segmenter`: a session of the model to measure, the caller's (left open). */
export async function boxIou(
  segmenter: Segmenter,
  refDir: string,
  photos: string[],
  count: number,
  maskCacheDir: string | undefined
): Promise<unknown> {
  const source = maskSource(segmenter, maskCacheDir)
  const rows: Array<{ scene: string; box: string; without: number; with: number; changed_outside: number }> = []
  let k = 0
  let ref = -1
  let last = ''
  const seen = new Set<string>()
  for await (const { scene } of qualityComposites(refDir, photos, { small: true })) {
    if (scene.name !== last) {
      last = scene.name
      // One reference per photo (a photo may have several references, from several models).
      const photo = scene.name.split('.')[0]!
      if (seen.has(photo)) {
        k = -1
        continue
      }
      seen.add(photo)
      ref++
      k = 0
    } else if (k < 0) continue
    else k++
    if (k !== ref % SCENES_PER_REFERENCE) continue
    const image: DecodedImage = {
      data: scene.image,
      width: scene.width,
      height: scene.height,
      channels: 4,
      hasAlpha: false,
      warnings: []
    }
    const params = { alpha: 'auto' as const, refine: 'edges' as const }
    const plain = await computeAlpha(image, scene.image, { segmenter: source }, params)
    for (const [label, box] of boxesFor(scene, plain.alpha)) {
      const boxed = await computeAlpha(image, scene.image, { segmenter: source }, params, undefined, undefined, [box])
      const inside = maskOf(box, scene.width, scene.height)
      let changed = 0
      for (let i = 0; i < inside.length; i++) if (!inside[i] && boxed.alpha[i] !== plain.alpha[i]) changed++
      rows.push({
        scene: `${scene.name}/${scene.family}`,
        box: label,
        without: round(iou(plain.alpha, scene.alpha, inside), 4),
        with: round(iou(boxed.alpha, scene.alpha, inside), 4),
        changed_outside: changed
      })
    }
    if (new Set(rows.map((r) => r.scene)).size >= count) break
  }
  const worse = rows.filter((r) => r.with < r.without)
  const mean = (f: (r: (typeof rows)[number]) => number): number => round(rows.reduce((s, r) => s + f(r), 0) / Math.max(1, rows.length), 4)
  return {
    composites: new Set(rows.map((r) => r.scene)).size,
    boxes: rows.length,
    mean_iou_in_box_without: mean((r) => r.without),
    mean_iou_in_box_with: mean((r) => r.with),
    worse_with_box: worse.length,
    worst_drop: round(Math.max(0, ...worse.map((r) => r.without - r.with)), 4),
    pixels_changed_outside: rows.reduce((s, r) => s + r.changed_outside, 0),
    rows
  }
}

/** The boxes a designer would draw on this composite (see the file's comment). */
function boxesFor(scene: Scene, alpha: Buffer): Array<[string, Box]> {
  const { width, height } = scene
  const out: Array<[string, Box]> = []
  const tw = Math.floor(width / 3)
  const th = Math.floor(height / 3)
  let best: Box | null = null
  let most = 0
  for (let ty = 0; ty < 3; ty++)
    for (let tx = 0; tx < 3; tx++) {
      const tile = { x: tx * tw, y: ty * th, width: tx === 2 ? width - 2 * tw : tw, height: ty === 2 ? height - 2 * th : th }
      let wrong = 0
      for (let y = tile.y; y < tile.y + tile.height; y++)
        for (let x = tile.x; x < tile.x + tile.width; x++) if (alpha[y * width + x]! >= 128 !== scene.alpha[y * width + x]! >= 128) wrong++
      if (wrong > most) [most, best] = [wrong, tile]
    }
  if (best) out.push(['error', best])
  let [x0, y0, x1, y1] = [width, height, -1, -1]
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if (scene.alpha[y * width + x]! >= 128) {
        if (x < x0) x0 = x
        if (x > x1) x1 = x
        if (y < y0) y0 = y
        y1 = y
      }
  if (x1 >= 0) {
    const gx = Math.round((x1 - x0 + 1) * 0.05)
    const gy = Math.round((y1 - y0 + 1) * 0.05)
    const box = { x: Math.max(0, x0 - gx), y: Math.max(0, y0 - gy), width: 0, height: 0 }
    box.width = Math.min(width, x1 + 1 + gx) - box.x
    box.height = Math.min(height, y1 + 1 + gy) - box.y
    if (box.width * box.height <= 0.5 * width * height && box.width >= 16 && box.height >= 16) out.push(['subject', box])
  }
  return out
}

function maskOf(box: Box, width: number, height: number): Uint8Array {
  const m = new Uint8Array(width * height)
  for (let y = box.y; y < box.y + box.height; y++) m.fill(1, y * width + box.x, y * width + box.x + box.width)
  return m
}
