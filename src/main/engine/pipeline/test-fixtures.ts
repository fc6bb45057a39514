/**
 * Images drawn in code for the pipeline's tests (tests never read the shared corpus).
 */
import sharp from 'sharp'

/** The synthetic scene the model test segments: a shaded red ball on a soft gradient. */
export const SCENE = { width: 512, height: 384, cx: 230, cy: 190, rx: 130, ry: 110 } as const

export function sceneSvg(): Buffer {
  const { width, height, cx, cy, rx, ry } = SCENE
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#f4f6fa"/><stop offset="1" stop-color="#c9d3e0"/>
    </linearGradient>
    <radialGradient id="ball" cx="0.35" cy="0.3" r="0.75">
      <stop offset="0" stop-color="#ff8a7a"/><stop offset="0.5" stop-color="#d81b0c"/><stop offset="1" stop-color="#5a0803"/>
    </radialGradient>
  </defs>
  <rect width="100%" height="100%" fill="url(#bg)"/>
  <ellipse cx="${cx}" cy="${cy}" rx="${rx}" ry="${ry}" fill="url(#ball)"/>
</svg>`)
}

export async function scenePng(): Promise<Buffer> {
  return sharp(sceneSvg()).png().toBuffer()
}

/**
 * Fractions of the ball's inner part (ellipse shrunk to 0.8 in squared radius) that is opaque
 * (alpha ≥ 128), and of the far background (outside 1.5) that is transparent (alpha < 128).
 * `stride`/`offset` pick the alpha out of interleaved data (1/0 for a bare mask, 4/3 for RGBA).
 */
export function sceneMaskScores(alpha: Buffer, stride = 1, offset = 0): { foreground: number; background: number } {
  const { width, height, cx, cy, rx, ry } = SCENE
  let fgAll = 0
  let fgOpaque = 0
  let bgAll = 0
  let bgClear = 0
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const d = ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2
      const a = alpha[(y * width + x) * stride + offset]!
      if (d < 0.8) {
        fgAll++
        if (a >= 128) fgOpaque++
      } else if (d > 1.5) {
        bgAll++
        if (a < 128) bgClear++
      }
    }
  }
  return { foreground: fgOpaque / fgAll, background: bgClear / bgAll }
}

/** A w×h RGBA image whose every pixel is `px`. */
export function solidRgba(width: number, height: number, px: [number, number, number, number]): Buffer {
  const data = Buffer.alloc(width * height * 4)
  for (let i = 0; i < data.length; i += 4) data.set(px, i)
  return data
}
