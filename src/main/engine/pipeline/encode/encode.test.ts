import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { readPsd } from 'ag-psd'
import { encodeImage, encodeVariation, flattenWarning, JPG_FLATTEN_WARNING, type RgbaImage } from './encode'
import { solidRgba } from '../../../../../test/fixtures/test-fixtures'

const W = 16
const H = 12

/** Left half opaque orange, right half fully transparent (its colour is junk: dark green). */
function halfClear(): RgbaImage {
  const data = Buffer.alloc(W * H * 4)
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) data.set(x < W / 2 ? [240, 120, 20, 255] : [0, 90, 0, 0], (y * W + x) * 4)
  return { data, width: W, height: H, channels: 4 }
}

async function readBack(bytes: Buffer) {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true })
  const px = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x + 1) * info.channels)]
  return { info, px }
}

function expectClose(actual: number[], expected: number[], tolerance: number): void {
  expect(actual).toHaveLength(expected.length)
  for (const [i, v] of actual.entries())
    expect(Math.abs(v - expected[i]!), `channel ${i}: ${v} vs ${expected[i]}`).toBeLessThanOrEqual(tolerance)
}

const MAGIC: Record<string, (b: Buffer) => boolean> = {
  png: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  webp: (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP',
  tiff: (b) => ['II*\0', 'MM\0*'].includes(b.toString('latin1', 0, 4)),
  jpeg: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff
}

describe('encodeImage', () => {
  it('png: lossless RGBA', async () => {
    const img = halfClear()
    const { bytes, warnings } = await encodeImage(img, 'png')
    expect(MAGIC.png!(bytes)).toBe(true)
    expect(warnings).toEqual([])
    const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true })
    expect([info.format, info.width, info.height, info.channels]).toEqual(['raw', W, H, 4])
    expect((await sharp(bytes).metadata()).format).toBe('png')
    expect([...data.subarray(0, 4)]).toEqual([240, 120, 20, 255])
    expect(data[(W - 1) * 4 + 3]).toBe(0)
  })

  it('webp: RGBA, lossy colour, exact alpha', async () => {
    const { bytes, warnings } = await encodeImage(halfClear(), 'webp')
    expect(MAGIC.webp!(bytes)).toBe(true)
    expect(warnings).toEqual([])
    const { info, px } = await readBack(bytes)
    expect([info.width, info.height, info.channels]).toEqual([W, H, 4])
    expectClose(px(2, 6), [240, 120, 20, 255], 12)
    expect(px(W - 2, 6)[3]).toBe(0)
  })

  it('tiff: lossless RGBA', async () => {
    const img = halfClear()
    const { bytes, warnings } = await encodeImage(img, 'tiff')
    expect(MAGIC.tiff!(bytes)).toBe(true)
    expect(warnings).toEqual([])
    const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true })
    expect([info.width, info.height, info.channels]).toEqual([W, H, 4])
    expect(data.equals(img.data)).toBe(true)
  })

  it.each(['jpg', 'jpeg'] as const)('%s: transparent parts flattened onto white, with a warning', async (format) => {
    const { bytes, warnings } = await encodeImage(halfClear(), format, { quality: 95 })
    expect(MAGIC.jpeg!(bytes)).toBe(true)
    expect(warnings).toEqual([JPG_FLATTEN_WARNING])
    const { info, px } = await readBack(bytes)
    expect([info.width, info.height, info.channels]).toEqual([W, H, 3])
    expectClose(px(2, 6), [240, 120, 20], 10)
    expectClose(px(W - 2, 6), [255, 255, 255], 4)
  })

  it('jpg: a half-transparent pixel is blended with white', async () => {
    const img: RgbaImage = { data: solidRgba(8, 8, [0, 0, 0, 128]), width: 8, height: 8, channels: 4 }
    const { bytes } = await encodeImage(img, 'jpg')
    const { px } = await readBack(bytes)
    expectClose(px(4, 4), [127, 127, 127], 4)
  })

  it('jpg: an opaque image is written without a warning', async () => {
    const img: RgbaImage = { data: solidRgba(8, 8, [10, 200, 30, 255]), width: 8, height: 8, channels: 4 }
    const { bytes, warnings } = await encodeImage(img, 'jpg')
    expect(warnings).toEqual([])
    const { info, px } = await readBack(bytes)
    expect(info.channels).toBe(3)
    expectClose(px(4, 4), [10, 200, 30], 6)
  })

  it('quality changes the jpg size; out-of-range quality is refused', async () => {
    // Noise so that quality matters.
    const data = Buffer.alloc(64 * 64 * 4)
    for (let i = 0; i < data.length; i++) data[i] = i % 4 === 3 ? 255 : (i * 7919) % 251
    const img: RgbaImage = { data, width: 64, height: 64, channels: 4 }
    const low = await encodeImage(img, 'jpg', { quality: 20 })
    const high = await encodeImage(img, 'jpg', { quality: 100 })
    expect(low.bytes.length).toBeLessThan(high.bytes.length)
    for (const quality of [0, 101, 50.5]) {
      await expect(encodeImage(img, 'webp', { quality })).rejects.toMatchObject({ reason: 'pipeline_error' })
    }
  })

  it('psd without layers: a document with the image as its one layer and as its composite', async () => {
    const { bytes, warnings } = await encodeImage(halfClear(), 'psd')
    expect(bytes.toString('latin1', 0, 4)).toBe('8BPS')
    expect(warnings).toEqual([])
    const psd = readPsd(bytes, { skipLayerImageData: true, skipCompositeImageData: true })
    expect([psd.width, psd.height, psd.children?.map((l) => l.name)]).toEqual([W, H, ['Subject']])
  })

  it.each(['jpg', 'jpeg'] as const)('%s: the flattening warning names the variation and the format', async (format) => {
    const { warnings } = await encodeImage(halfClear(), format, { variation: 'shadowTop' })
    expect(warnings).toEqual([`the shadowTop variation was flattened onto white: ${format} has no transparency`])
    expect(flattenWarning(format, 'background')).toBe(`the background variation was flattened onto white: ${format} has no transparency`)
  })

  it('greyscale (the mask): one channel in png, tiff and jpg, never a flattening warning', async () => {
    const grey: RgbaImage = { data: solidRgba(8, 8, [77, 77, 77, 255]), width: 8, height: 8, channels: 4 }
    for (const format of ['png', 'tiff', 'jpg'] as const) {
      const { bytes, warnings } = await encodeImage(grey, format, { greyscale: true, variation: 'mask' })
      expect(warnings).toEqual([])
      expect((await sharp(bytes).metadata()).channels, format).toBe(1)
      const { data } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true })
      expect(Math.abs(data[0]! - 77)).toBeLessThanOrEqual(2)
    }
  })

  it('encodeVariation passes the variation and greyscale on', async () => {
    const { warnings } = await encodeVariation({ variation: 'compose', image: halfClear() }, 'jpeg', { quality: 80 })
    expect(warnings).toEqual(['the compose variation was flattened onto white: jpeg has no transparency'])
  })

  it('refuses pixel data of the wrong size', async () => {
    const img = { ...halfClear(), height: H + 1 }
    await expect(encodeImage(img, 'png')).rejects.toMatchObject({ reason: 'pipeline_error' })
  })
})
