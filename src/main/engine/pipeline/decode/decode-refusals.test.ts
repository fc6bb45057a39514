import { crc32 } from 'node:zlib'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { solidRgba } from '../../../../../test/fixtures/test-fixtures'
import { decodeImage } from './decode'
import { failure, MAX, palette, raw } from './decode.fixtures'

// What decodeImage refuses, each with its reason and message: an image over the pixel limit
// (judged from the header, before decoding), bytes of no supported type, damaged or truncated
// data, and a maxPixels that is not a positive integer.

describe('decodeImage: refusals', () => {
  it('refuses an image over maxPixels; exactly at the limit is fine', async () => {
    const png = await raw(solidRgba(20, 20, [0, 0, 0, 255]), 20, 20)
      .png()
      .toBuffer()
    const err = await failure(decodeImage(png, { maxPixels: 399 }))
    expect(err.reason).toBe('image_too_large')
    expect(err.message).toBe('the image is 20×20 (0.0 MP), over the limit of 0.0 MP')
    expect((await decodeImage(png, { maxPixels: 400 })).width).toBe(20)
  })

  it('refuses, from the header alone, a tiny PNG claiming 100000×100000', async () => {
    const png = await raw(solidRgba(2, 2, [0, 0, 0, 255]), 2, 2)
      .png()
      .toBuffer()
    // IHDR is the first chunk: length(4) 'IHDR'(4) width(4) height(4) ... then its CRC over
    // type + data (17 bytes). Rewrite the size and the CRC so the header stays valid.
    expect(png.toString('latin1', 12, 16)).toBe('IHDR')
    png.writeUInt32BE(100_000, 16)
    png.writeUInt32BE(100_000, 20)
    png.writeUInt32BE(crc32(png.subarray(12, 29)), 29)
    expect(await sharp(png, { limitInputPixels: false }).metadata()).toMatchObject({ width: 100_000, height: 100_000 })

    const err = await failure(decodeImage(png, { maxPixels: MAX }))
    expect(err.reason).toBe('image_too_large')
    expect(err.message).toBe('the image is 100000×100000 (10000.0 MP), over the limit of 100.0 MP')
  })

  it('refuses an SVG whose declared size is over the limit, before rendering', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="20000" height="20000"><rect width="10" height="10"/></svg>')
    const err = await failure(decodeImage(svg, { maxPixels: MAX }))
    expect(err.reason).toBe('image_too_large')
    expect(err.message).toBe('the image is 20000×20000 (400.0 MP), over the limit of 100.0 MP')
  })

  it('refuses bytes that are not an image of a supported type', async () => {
    const bmp = Buffer.concat([Buffer.from('BM', 'latin1'), Buffer.alloc(60)])
    for (const bytes of [Buffer.from('hello, this is not an image'), Buffer.alloc(0), Buffer.from('{"a": 1}'), bmp]) {
      const err = await failure(decodeImage(bytes, { maxPixels: MAX }))
      expect(err.reason).toBe('unsupported_image')
      expect(err.message).toBe('not a supported image: the bytes are not a PNG, JPEG, WebP, GIF, AVIF, TIFF, PSD or SVG image')
    }
  })

  it('refuses a gzip stream that does not inflate', async () => {
    const err = await failure(decodeImage(Buffer.from([0x1f, 0x8b, 1, 2, 3, 4]), { maxPixels: MAX }))
    expect(err.reason).toBe('unsupported_image')
    expect(err.message).toBe('the compressed svg image cannot be inflated (damaged or too large)')
  })

  it('refuses an SVG that is not well-formed', async () => {
    const err = await failure(
      decodeImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect'), { maxPixels: MAX })
    )
    expect(err.reason).toBe('unsupported_image')
    expect(err.message).toMatch(/^the svg image cannot be used: the svg is not well-formed XML/)
  })

  it('refuses a header sharp cannot read', async () => {
    const err = await failure(decodeImage(Buffer.from('GIF89a\x00\x00'), { maxPixels: MAX }))
    expect(err.reason).toBe('unsupported_image')
    expect(err.message).toMatch(/^not a supported image: /)
  })

  it('refuses a truncated PNG', async () => {
    const png = await raw(solidRgba(64, 64, [10, 20, 30, 255]), 64, 64)
      .png({ compressionLevel: 0 })
      .toBuffer()
    const err = await failure(decodeImage(png.subarray(0, png.length - 2000), { maxPixels: MAX }))
    expect(err.reason).toBe('unsupported_image')
    expect(err.message).toMatch(/^the png image cannot be decoded: /)
  })

  it.each([0, -1, 1.5, Number.NaN])('refuses maxPixels %s', async (maxPixels) => {
    const err = await failure(decodeImage(await raw(palette(), 4, 2).png().toBuffer(), { maxPixels }))
    expect(err.reason).toBe('pipeline_error')
    expect(err.message).toBe(`maxPixels must be a positive integer, got ${maxPixels}`)
  })
})
