/**
 * Images drawn in code for the integration tests (tests never read the shared corpus).
 * The scene is one the model segments reliably: a shaded red ball on a soft gradient.
 */
import { crc32 } from 'node:zlib'
import sharp from 'sharp'

export { SCENE, sceneSvg, sceneMaskScores } from '../fixtures/test-fixtures'
import { sceneSvg } from '../fixtures/test-fixtures'

export async function scenePng(): Promise<Buffer> {
  return sharp(sceneSvg()).png().toBuffer()
}

export async function sceneJpeg(): Promise<Buffer> {
  return sharp(sceneSvg()).jpeg({ quality: 90 }).toBuffer()
}

/**
 * A large red ball on a gradient and, far from it near the top right corner, a small blue-grey
 * disc (`SMALL_SUBJECT`): the model on the whole frame misses the small one, and on a crop
 * around it (`SMALL_SUBJECT.box`) finds it.
 */
export const SMALL_SUBJECT = { width: 768, height: 512, cx: 660, cy: 96, r: 20, box: { x: 620, y: 56, width: 80, height: 80 } } as const

export async function smallSubjectPng(): Promise<Buffer> {
  const { width, height, cx, cy, r } = SMALL_SUBJECT
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f4f6fa"/><stop offset="1" stop-color="#c9d3e0"/></linearGradient>
    <radialGradient id="ball" cx="0.35" cy="0.3" r="0.75"><stop offset="0" stop-color="#ff8a7a"/><stop offset="0.5" stop-color="#d81b0c"/><stop offset="1" stop-color="#5a0803"/></radialGradient>
    <radialGradient id="small" cx="0.35" cy="0.3" r="0.75"><stop offset="0" stop-color="#9ab0c8"/><stop offset="1" stop-color="#40506a"/></radialGradient>
  </defs>
  <rect width="100%" height="100%" fill="url(#bg)"/>
  <ellipse cx="280" cy="300" rx="190" ry="170" fill="url(#ball)"/>
  <circle cx="${cx}" cy="${cy}" r="${r}" fill="url(#small)"/>
</svg>`
  return sharp(Buffer.from(svg)).png().toBuffer()
}

/** Mean alpha over the small subject's disc (its edge left out), and whether (x, y) lies in its box. */
export function smallSubjectScores(alpha: Buffer): number {
  const { width, height, cx, cy, r } = SMALL_SUBJECT
  let sum = 0
  let n = 0
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if (Math.hypot(x + 0.5 - cx, y + 0.5 - cy) < r - 3) {
        sum += alpha[y * width + x]!
        n++
      }
  return sum / n
}

export function inSmallSubjectBox(x: number, y: number): boolean {
  const b = SMALL_SUBJECT.box
  return x >= b.x && x < b.x + b.width && y >= b.y && y < b.y + b.height
}

/** A small valid PNG of one colour (for tests that never run the model). */
export async function tinyPng(width = 8, height = 8): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#4080c0' } })
    .png()
    .toBuffer()
}

/**
 * Clutter with no subject: seeded random rectangles, discs and rotated bars of random colours on
 * a random ground, 640 × 480. The model takes scattered parts of it for a subject, unsure and
 * ragged: seed 6's delivered cutout, after its second look, scores "Likely wrong" (0.93 with the
 * shipped weights), a cutout to fix. (Seed 2's first mask is doubtful too, but the refine step
 * tidies it into a few sure shapes: 0.25.)
 */
export async function clutterPng(seed = 6, width = 640, height = 480): Promise<Buffer> {
  let s = seed >>> 0 || 1
  const rand = (): number => {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    return (s >>> 0) / 4294967296
  }
  const colour = (): string => `rgb(${Math.round(rand() * 255)},${Math.round(rand() * 255)},${Math.round(rand() * 255)})`
  let shapes = ''
  for (let i = 0; i < 70; i++) {
    const kind = Math.floor(rand() * 3)
    const x = (rand() * width).toFixed(1)
    const y = (rand() * height).toFixed(1)
    const size = 20 + rand() * 160
    if (kind === 0)
      shapes += `<rect x="${x}" y="${y}" width="${size.toFixed(1)}" height="${(size * (0.4 + rand())).toFixed(1)}" fill="${colour()}"/>`
    else if (kind === 1) shapes += `<circle cx="${x}" cy="${y}" r="${(size / 2).toFixed(1)}" fill="${colour()}"/>`
    else
      shapes += `<rect x="${x}" y="${y}" width="${size.toFixed(1)}" height="${(size / 3).toFixed(1)}" fill="${colour()}" transform="rotate(${Math.round(rand() * 180)} ${x} ${y})"/>`
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="${colour()}"/>${shapes}</svg>`
  return sharp(Buffer.from(svg)).png().toBuffer()
}

/**
 * A PNG whose signature and header (IHDR, `width` × `height`, 8-bit RGBA) are right but whose
 * image data is junk: its header probes as an image, its pixels cannot be decoded.
 */
export function junkBodyPng(width = 64, height = 48): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const head = Buffer.alloc(8)
    head.writeUInt32BE(data.length, 0)
    head.write(type, 4, 'latin1')
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0)
    return Buffer.concat([head, data, crc])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 6 // RGBA
  const junk = Buffer.alloc(4096)
  for (let i = 0; i < junk.length; i++) junk[i] = (i * 73 + 41) & 0xff
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', junk),
    chunk('IEND', Buffer.alloc(0))
  ])
}
