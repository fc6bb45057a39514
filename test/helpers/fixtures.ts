/**
 * Images drawn in code for the integration tests (tests never read the shared corpus).
 * The scene is one the model segments reliably: a shaded red ball on a soft gradient.
 */
import sharp from 'sharp'

export { SCENE, sceneSvg, sceneMaskScores } from '../../src/main/engine/pipeline/test-fixtures'
import { sceneSvg } from '../../src/main/engine/pipeline/test-fixtures'

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
  return sharp({ create: { width, height, channels: 3, background: '#4080c0' } }).png().toBuffer()
}
