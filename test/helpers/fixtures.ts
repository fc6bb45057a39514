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

/** A small valid PNG of one colour (for tests that never run the model). */
export async function tinyPng(width = 8, height = 8): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#4080c0' } }).png().toBuffer()
}
