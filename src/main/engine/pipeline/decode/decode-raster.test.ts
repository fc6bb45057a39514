import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { solidRgba } from '../../../../../test/fixtures/test-fixtures'
import { decodeImage } from './decode'
import { expectClose, MAX, p3Red, palette, pixel, raw } from './decode.fixtures'

// The raster formats sharp reads (PNG, JPEG, WebP, GIF, AVIF, TIFF) decoded to 8-bit sRGB RGBA:
// bit depths, palettes and greyscale, colour profiles and CMYK, EXIF orientation, and the first
// frame or page of an animation or a multi-page file.

/** Largest per-channel difference between two RGBA buffers. */
function maxDiff(a: Buffer, b: Buffer): number {
  expect(a.length).toBe(b.length)
  let d = 0
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!))
  return d
}

/** A 32×16 RGBA gradient with a soft alpha ramp: exercises every channel value range. */
function gradient(width = 32, height = 16): Buffer {
  const data = Buffer.alloc(width * height * 4)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) data.set([x * 8, y * 16, 255 - x * 8, 255 - ((x * 8) >> 1)], (y * width + x) * 4)
  return data
}

describe('decodeImage: PNG', () => {
  it('8-bit RGBA: exact values, real alpha detected', async () => {
    const img = await decodeImage(await raw(palette(), 4, 2).png().toBuffer(), { maxPixels: MAX })
    expect([img.width, img.height, img.channels]).toEqual([4, 2, 4])
    expect(img.data.equals(palette())).toBe(true)
    expect(img.hasAlpha).toBe(true)
    expect(img.warnings).toEqual([])
  })

  it('8-bit RGB without alpha: exact values, opaque', async () => {
    const rgb = Buffer.from([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120])
    const png = await raw(rgb, 2, 2, 3).png().toBuffer()
    expect((await sharp(png).metadata()).channels).toBe(3)
    const img = await decodeImage(png, { maxPixels: MAX })
    expect([...img.data]).toEqual([10, 20, 30, 255, 40, 50, 60, 255, 70, 80, 90, 255, 100, 110, 120, 255])
    expect(img.hasAlpha).toBe(false)
  })

  it('an alpha channel that is fully opaque: hasAlpha false', async () => {
    const img = await decodeImage(
      await raw(solidRgba(3, 3, [1, 2, 3, 255]), 3, 3)
        .png()
        .toBuffer(),
      { maxPixels: MAX }
    )
    expect(img.hasAlpha).toBe(false)
    expect(pixel(img, 2, 2)).toEqual([1, 2, 3, 255])
  })

  it('16-bit RGBA is reduced to 8-bit', async () => {
    const png16 = await raw(gradient(), 32, 16).toColourspace('rgb16').png().toBuffer()
    expect((await sharp(png16).metadata()).depth).toBe('ushort')
    const img = await decodeImage(png16, { maxPixels: MAX })
    expect([img.width, img.height, img.data.length]).toEqual([32, 16, 32 * 16 * 4])
    expect(maxDiff(img.data, gradient())).toBeLessThanOrEqual(1)
    expect(img.hasAlpha).toBe(true)
  })

  it('palette (indexed) with transparency: exact colours and alpha', async () => {
    const png = await raw(palette(), 4, 2).png({ palette: true, dither: 0, colours: 16 }).toBuffer()
    const meta = await sharp(png).metadata()
    expect(meta.isPalette).toBe(true)
    const img = await decodeImage(png, { maxPixels: MAX })
    // Fully transparent pixels may take any palette colour: compare their alpha only.
    expect(img.data.subarray(0, 24).equals(palette().subarray(0, 24))).toBe(true)
    expect([pixel(img, 2, 1)[3], pixel(img, 3, 1)[3]]).toEqual([0, 0])
    expect(img.hasAlpha).toBe(true)
  })

  it('greyscale and greyscale + alpha become RGB(A)', async () => {
    const grey = await decodeImage(
      await raw(Buffer.from([0, 100, 200, 255]), 2, 2, 1)
        .png()
        .toBuffer(),
      { maxPixels: MAX }
    )
    expect([...grey.data]).toEqual([0, 0, 0, 255, 100, 100, 100, 255, 200, 200, 200, 255, 255, 255, 255, 255])
    const greyAlpha = await decodeImage(
      await raw(Buffer.from([50, 255, 150, 0]), 2, 1, 2)
        .png()
        .toBuffer(),
      { maxPixels: MAX }
    )
    expect([...greyAlpha.data]).toEqual([50, 50, 50, 255, 150, 150, 150, 0])
    expect(greyAlpha.hasAlpha).toBe(true)
  })

  it('an embedded colour profile (Display P3) is converted to sRGB', async () => {
    const png = await p3Red()
    // Stored values are P3 (red is not 255,0,0 there); decoded values are sRGB again.
    expectClose([...(await sharp(png, { ignoreIcc: true }).ensureAlpha().raw().toBuffer()).subarray(0, 4)], [234, 51, 35, 255], 2)
    const img = await decodeImage(png, { maxPixels: MAX })
    expectClose(pixel(img, 1, 1), [255, 0, 0, 255], 1)
  })
})

describe('decodeImage: JPEG', () => {
  it('EXIF orientation 6 is turned upright (width and height swapped)', async () => {
    // Stored 40×20: left half red, right half blue. Orientation 6 = rotate 90° clockwise to
    // display, so the stored left (red) half ends up on top of a 20×40 image.
    const stored = Buffer.alloc(40 * 20 * 3)
    for (let y = 0; y < 20; y++) for (let x = 0; x < 40; x++) stored.set(x < 20 ? [230, 20, 20] : [20, 20, 230], (y * 40 + x) * 3)
    const jpeg = await raw(stored, 40, 20, 3).jpeg({ quality: 100 }).withMetadata({ orientation: 6 }).toBuffer()
    expect((await sharp(jpeg).metadata()).orientation).toBe(6)

    const img = await decodeImage(jpeg, { maxPixels: MAX })
    expect([img.width, img.height]).toEqual([20, 40])
    expectClose(pixel(img, 10, 5), [230, 20, 20, 255], 8)
    expectClose(pixel(img, 10, 34), [20, 20, 230, 255], 8)
    expect(img.hasAlpha).toBe(false)
  })

  it('CMYK is converted to sRGB', async () => {
    const cmyk = await raw(solidRgba(8, 8, [255, 0, 0, 255]), 8, 8)
      .removeAlpha()
      .toColourspace('cmyk')
      .jpeg()
      .toBuffer()
    expect((await sharp(cmyk).metadata()).space).toBe('cmyk')
    const img = await decodeImage(cmyk, { maxPixels: MAX })
    const [r, g, b, a] = pixel(img, 4, 4)
    expect(r).toBeGreaterThan(200)
    expect(g).toBeLessThan(60)
    expect(b).toBeLessThan(60)
    expect(a).toBe(255)
  })

  it('greyscale JPEG becomes RGB', async () => {
    const jpeg = await raw(Buffer.alloc(8 * 8, 90), 8, 8, 1)
      .toColourspace('b-w')
      .jpeg({ quality: 100 })
      .toBuffer()
    expect((await sharp(jpeg).metadata()).channels).toBe(1)
    const img = await decodeImage(jpeg, { maxPixels: MAX })
    expectClose(pixel(img, 3, 3), [90, 90, 90, 255], 1)
  })
})

describe('decodeImage: WebP, GIF, AVIF, TIFF', () => {
  it('WebP lossless: exact RGBA values', async () => {
    const img = await decodeImage(await raw(palette(), 4, 2).webp({ lossless: true }).toBuffer(), { maxPixels: MAX })
    expect(img.data.equals(palette())).toBe(true)
  })

  it('animated WebP: the first frame, with a warning', async () => {
    const frames = Buffer.concat([solidRgba(8, 8, [0, 200, 0, 255]), solidRgba(8, 8, [200, 0, 0, 255])])
    const webp = await sharp(frames, { raw: { width: 8, height: 16, channels: 4, pageHeight: 8 } })
      .webp({ lossless: true })
      .toBuffer()
    expect((await sharp(webp).metadata()).pages).toBe(2)
    const img = await decodeImage(webp, { maxPixels: MAX })
    expect([img.width, img.height]).toEqual([8, 8])
    expect(pixel(img, 4, 4)).toEqual([0, 200, 0, 255])
    expect(img.warnings).toEqual(['animated WebP: only the first frame was used'])
  })

  it('GIF: single frame decoded, no warning', async () => {
    const gif = await raw(solidRgba(6, 4, [255, 0, 0, 255]), 6, 4)
      .gif()
      .toBuffer()
    const img = await decodeImage(gif, { maxPixels: MAX })
    expect([img.width, img.height]).toEqual([6, 4])
    expect(pixel(img, 5, 3)).toEqual([255, 0, 0, 255])
    expect(img.warnings).toEqual([])
  })

  it('animated GIF: the first frame only, with a warning; transparency kept', async () => {
    const first = solidRgba(6, 4, [255, 0, 0, 255])
    first.fill(0, 0, 4) // one clear pixel
    const frames = Buffer.concat([first, solidRgba(6, 4, [0, 0, 255, 255])])
    const gif = await sharp(frames, { raw: { width: 6, height: 8, channels: 4, pageHeight: 4 } })
      .gif()
      .toBuffer()
    expect((await sharp(gif).metadata()).pages).toBe(2)
    const img = await decodeImage(gif, { maxPixels: MAX })
    expect([img.width, img.height]).toEqual([6, 4])
    expect(pixel(img, 1, 0)).toEqual([255, 0, 0, 255])
    expect(pixel(img, 0, 0)[3]).toBe(0)
    expect(img.hasAlpha).toBe(true)
    expect(img.warnings).toEqual(['animated GIF: only the first frame was used'])
  })

  it('AVIF: decoded to the drawn colours, alpha kept', async () => {
    const src = Buffer.concat([solidRgba(16, 8, [200, 40, 40, 255]), solidRgba(16, 8, [40, 40, 200, 0])])
    const avif = await raw(src, 16, 16).avif({ quality: 100, chromaSubsampling: '4:4:4' }).toBuffer()
    expect((await sharp(avif).metadata()).format).toBe('heif')
    const img = await decodeImage(avif, { maxPixels: MAX })
    expect([img.width, img.height]).toEqual([16, 16])
    expectClose(pixel(img, 8, 3), [200, 40, 40, 255], 6)
    expect(pixel(img, 8, 12)[3]).toBe(0)
    expect(img.hasAlpha).toBe(true)
  })

  it('TIFF: exact RGBA values', async () => {
    const img = await decodeImage(await raw(palette(), 4, 2).tiff({ compression: 'lzw' }).toBuffer(), { maxPixels: MAX })
    expect(img.data.equals(palette())).toBe(true)
  })

  it('TIFF in CMYK is converted to sRGB', async () => {
    const tiff = await raw(solidRgba(8, 8, [0, 0, 255, 255]), 8, 8)
      .removeAlpha()
      .toColourspace('cmyk')
      .tiff()
      .toBuffer()
    expect((await sharp(tiff).metadata()).space).toBe('cmyk')
    const [r, g, b] = pixel(await decodeImage(tiff, { maxPixels: MAX }), 2, 2)
    expect(b).toBeGreaterThan(120)
    expect(r).toBeLessThan(80)
    expect(g).toBeLessThan(110)
  })

  it('multi-page TIFF: the first page, with a warning', async () => {
    const pages = Buffer.concat([solidRgba(4, 4, [1, 2, 3, 255]), solidRgba(4, 4, [9, 9, 9, 255])])
    const tiff = await sharp(pages, { raw: { width: 4, height: 8, channels: 4, pageHeight: 4 } })
      .tiff()
      .toBuffer()
    expect((await sharp(tiff).metadata()).pages).toBe(2)
    const img = await decodeImage(tiff, { maxPixels: MAX })
    expect([img.width, img.height]).toEqual([4, 4])
    expectClose(pixel(img, 0, 0), [1, 2, 3, 255], 1)
    expect(img.warnings).toEqual(['multi-page TIFF: only the first page was used'])
  })
})
