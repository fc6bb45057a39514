import { crc32 } from 'node:zlib'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { JobFailure } from '../errors'
import { decodeImage } from './decode'
import { solidRgba } from './test-fixtures'

const MAX = 100_000_000

/** A 4×2 RGBA image: opaque red, green, blue, white on top; half-transparent grey, clear below. */
function palette(): Buffer {
  return Buffer.from([
    255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255,
    128, 128, 128, 128, 128, 128, 128, 128, 0, 0, 0, 0, 0, 0, 0, 0
  ])
}
const raw = (data: Buffer, width: number, height: number, channels: 3 | 4 = 4) =>
  sharp(data, { raw: { width, height, channels } })

function pixel(img: { data: Buffer; width: number }, x: number, y: number): number[] {
  const i = (y * img.width + x) * 4
  return [...img.data.subarray(i, i + 4)]
}

function expectClose(actual: number[], expected: number[], tolerance: number): void {
  expect(actual).toHaveLength(expected.length)
  actual.forEach((v, i) => expect(Math.abs(v - expected[i]!), `channel ${i}: ${v} vs ${expected[i]}`).toBeLessThanOrEqual(tolerance))
}

async function failure(p: Promise<unknown>): Promise<JobFailure> {
  const err = await p.then(
    () => {
      throw new Error('expected a rejection')
    },
    (e: unknown) => e
  )
  expect(err).toBeInstanceOf(JobFailure)
  return err as JobFailure
}

describe('decodeImage', () => {
  it('PNG: exact RGBA values, real alpha detected', async () => {
    const img = await decodeImage(await raw(palette(), 4, 2).png().toBuffer(), { maxPixels: MAX })
    expect([img.width, img.height, img.channels]).toEqual([4, 2, 4])
    expect(img.data.equals(palette())).toBe(true)
    expect(img.hasAlpha).toBe(true)
    expect(img.warnings).toEqual([])
  })

  it('PNG with an alpha channel that is fully opaque: hasAlpha false', async () => {
    const img = await decodeImage(await raw(solidRgba(3, 3, [1, 2, 3, 255]), 3, 3).png().toBuffer(), { maxPixels: MAX })
    expect(img.hasAlpha).toBe(false)
    expect(pixel(img, 2, 2)).toEqual([1, 2, 3, 255])
  })

  it('16-bit PNG is reduced to 8-bit', async () => {
    const png16 = await raw(palette(), 4, 2).toColourspace('rgb16').png().toBuffer()
    expect((await sharp(png16).metadata()).depth).toBe('ushort')
    const img = await decodeImage(png16, { maxPixels: MAX })
    expect(img.data.length).toBe(4 * 2 * 4)
    expectClose(pixel(img, 0, 0), [255, 0, 0, 255], 0)
    expectClose(pixel(img, 0, 1), [128, 128, 128, 128], 1)
  })

  it('JPEG with EXIF orientation 6 is turned upright (width and height swapped)', async () => {
    // Stored 40×20: left half red, right half blue. Orientation 6 = rotate 90° clockwise to
    // display, so the stored left (red) half ends up on top of a 20×40 image.
    const stored = Buffer.alloc(40 * 20 * 3)
    for (let y = 0; y < 20; y++)
      for (let x = 0; x < 40; x++) stored.set(x < 20 ? [230, 20, 20] : [20, 20, 230], (y * 40 + x) * 3)
    const jpeg = await raw(stored, 40, 20, 3).jpeg({ quality: 100 }).withMetadata({ orientation: 6 }).toBuffer()
    expect((await sharp(jpeg).metadata()).orientation).toBe(6)

    const img = await decodeImage(jpeg, { maxPixels: MAX })
    expect([img.width, img.height]).toEqual([20, 40])
    expectClose(pixel(img, 10, 5), [230, 20, 20, 255], 8)
    expectClose(pixel(img, 10, 34), [20, 20, 230, 255], 8)
    expect(img.hasAlpha).toBe(false)
  })

  it('CMYK JPEG is converted to sRGB', async () => {
    const cmyk = await raw(solidRgba(8, 8, [255, 0, 0, 255]), 8, 8).removeAlpha().toColourspace('cmyk').jpeg().toBuffer()
    expect((await sharp(cmyk).metadata()).space).toBe('cmyk')
    const img = await decodeImage(cmyk, { maxPixels: MAX })
    const [r, g, b, a] = pixel(img, 4, 4)
    expect(r).toBeGreaterThan(200)
    expect(g).toBeLessThan(40)
    expect(b).toBeLessThan(40)
    expect(a).toBe(255)
  })

  it('WebP (lossless): exact RGBA values', async () => {
    const img = await decodeImage(await raw(palette(), 4, 2).webp({ lossless: true }).toBuffer(), { maxPixels: MAX })
    expect(img.data.equals(palette())).toBe(true)
  })

  it('TIFF: exact RGBA values', async () => {
    const img = await decodeImage(await raw(palette(), 4, 2).tiff({ compression: 'lzw' }).toBuffer(), { maxPixels: MAX })
    expect(img.data.equals(palette())).toBe(true)
  })

  it('GIF: single frame decoded, no warning', async () => {
    const gif = await raw(solidRgba(6, 4, [255, 0, 0, 255]), 6, 4).gif().toBuffer()
    const img = await decodeImage(gif, { maxPixels: MAX })
    expect([img.width, img.height]).toEqual([6, 4])
    expect(pixel(img, 5, 3)).toEqual([255, 0, 0, 255])
    expect(img.warnings).toEqual([])
  })

  it('animated GIF: the first frame only, with a warning', async () => {
    const frames = Buffer.concat([solidRgba(6, 4, [255, 0, 0, 255]), solidRgba(6, 4, [0, 0, 255, 255])])
    const gif = await sharp(frames, { raw: { width: 6, height: 8, channels: 4, pageHeight: 4 } }).gif().toBuffer()
    expect((await sharp(gif).metadata()).pages).toBe(2)
    const img = await decodeImage(gif, { maxPixels: MAX })
    expect([img.width, img.height]).toEqual([6, 4])
    expect(pixel(img, 0, 0)).toEqual([255, 0, 0, 255])
    expect(img.warnings).toEqual(['animated GIF: only the first frame was used'])
  })

  it('SVG is rendered, transparent where nothing is drawn', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="20" height="30" fill="#00ff00"/></svg>'
    )
    const img = await decodeImage(svg, { maxPixels: MAX })
    expect([img.width, img.height]).toEqual([40, 30])
    expect(pixel(img, 5, 15)).toEqual([0, 255, 0, 255])
    expect(pixel(img, 35, 15)[3]).toBe(0)
    expect(img.hasAlpha).toBe(true)
  })

  it('refuses an image over maxPixels', async () => {
    const png = await raw(solidRgba(20, 20, [0, 0, 0, 255]), 20, 20).png().toBuffer()
    const err = await failure(decodeImage(png, { maxPixels: 399 }))
    expect(err.reason).toBe('image_too_large')
    // Exactly at the limit is fine.
    expect((await decodeImage(png, { maxPixels: 400 })).width).toBe(20)
  })

  it('refuses, from the header alone, a tiny PNG claiming 100000×100000', async () => {
    const png = await raw(solidRgba(2, 2, [0, 0, 0, 255]), 2, 2).png().toBuffer()
    // IHDR is the first chunk: length(4) 'IHDR'(4) width(4) height(4) ... then its CRC over
    // type + data (17 bytes). Rewrite the size and the CRC so the header stays valid.
    expect(png.toString('latin1', 12, 16)).toBe('IHDR')
    png.writeUInt32BE(100_000, 16)
    png.writeUInt32BE(100_000, 20)
    png.writeUInt32BE(crc32(png.subarray(12, 29)), 29)
    expect(await sharp(png, { limitInputPixels: false }).metadata()).toMatchObject({ width: 100_000, height: 100_000 })

    const err = await failure(decodeImage(png, { maxPixels: MAX }))
    expect(err.reason).toBe('image_too_large')
    expect(err.message).toMatch(/100000×100000/)
  })

  it('refuses bytes that are not an image', async () => {
    for (const bytes of [Buffer.from('hello, this is not an image'), Buffer.alloc(0), Buffer.from('{"a": 1}')]) {
      expect((await failure(decodeImage(bytes, { maxPixels: MAX }))).reason).toBe('unsupported_image')
    }
  })

  it('refuses a truncated PNG', async () => {
    const png = await raw(solidRgba(64, 64, [10, 20, 30, 255]), 64, 64).png({ compressionLevel: 0 }).toBuffer()
    const err = await failure(decodeImage(png.subarray(0, png.length - 2000), { maxPixels: MAX }))
    expect(err.reason).toBe('unsupported_image')
  })

  it('PSD input is not implemented yet', async () => {
    const psd = Buffer.concat([Buffer.from('8BPS', 'latin1'), Buffer.alloc(40)])
    expect((await failure(decodeImage(psd, { maxPixels: MAX }))).reason).toBe('not_implemented')
  })
})
