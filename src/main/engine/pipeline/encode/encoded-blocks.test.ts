import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { encodeImage } from './encode'
import { matrixProfile } from '../../../../../test/fixtures/icc-fixtures'
import { jpegWithBlocks, pngWithIcc, tiffWithIcc, webpWithIcc } from './encoded-blocks'
import { solidRgba } from '../../../../../test/fixtures/test-fixtures'

const image = { data: solidRgba(16, 16, [200, 100, 50, 255]), width: 16, height: 16, channels: 4 as const }

describe('encoded-blocks', () => {
  it('adds a profile to a PNG and a JPEG that readers find, pixels untouched', async () => {
    const icc = matrixProfile()
    const png = await sharp(image.data, { raw: { width: 16, height: 16, channels: 4 } })
      .png()
      .toBuffer()
    const jpeg = await sharp(image.data, { raw: { width: 16, height: 16, channels: 4 } })
      .jpeg({ quality: 100 })
      .toBuffer()
    for (const [plain, tagged] of [
      [png, pngWithIcc(png, icc)],
      [jpeg, jpegWithBlocks(jpeg, { icc })]
    ] as const) {
      expect(Buffer.compare((await sharp(tagged).metadata()).icc!, icc)).toBe(0)
      expect((await sharp(tagged, { ignoreIcc: true }).raw().toBuffer()).equals(await sharp(plain).raw().toBuffer())).toBe(true)
    }
  })

  it('splits a profile over 64 KB across numbered JPEG segments', async () => {
    const big = Buffer.concat([matrixProfile(), Buffer.alloc(150_000)])
    big.writeUInt32BE(big.length, 0)
    const jpeg = await sharp(image.data, { raw: { width: 16, height: 16, channels: 4 } })
      .jpeg()
      .toBuffer()
    const tagged = jpegWithBlocks(jpeg, { icc: big })
    expect(Buffer.compare((await sharp(tagged).metadata()).icc!, big)).toBe(0)
  })

  it('puts the profile after the EXIF segment, which stays where readers look', async () => {
    const { bytes } = await encodeImage(image, 'jpg', { exif: { image: { Make: 'Canon' }, photo: {}, gps: {} } })
    const app1 = bytes.indexOf(Buffer.from([0xff, 0xe1]))
    const app2 = bytes.indexOf(Buffer.from('ICC_PROFILE\0', 'latin1'))
    expect(app1).toBeGreaterThan(0)
    expect(app2).toBeGreaterThan(app1)
    expect((await sharp(bytes).metadata()).exif!.includes('Canon')).toBe(true)
  })
})

describe('webpWithIcc', () => {
  it.each([
    ['lossy, opaque (simple VP8)', { lossless: false }, 255],
    ['lossless, opaque (simple VP8L)', { lossless: true }, 255],
    ['lossless with alpha (simple VP8L)', { lossless: true }, 128],
    ['lossy with alpha (VP8X + ALPH)', { lossless: false }, 128]
  ] as const)('%s: readers find the profile, pixels untouched', async (_name, options, alpha) => {
    const icc = matrixProfile()
    const data = solidRgba(16, 16, [200, 100, 50, alpha])
    const webp = await sharp(data, { raw: { width: 16, height: 16, channels: 4 } })
      .webp({ ...options, quality: 90 })
      .toBuffer()
    const tagged = webpWithIcc(webp, icc, { width: 16, height: 16 })
    const meta = await sharp(tagged).metadata()
    expect(Buffer.compare(meta.icc!, icc)).toBe(0)
    expect([meta.width, meta.height, meta.hasAlpha]).toEqual([16, 16, alpha < 255])
    expect((await sharp(tagged, { ignoreIcc: true }).raw().toBuffer()).equals(await sharp(webp).raw().toBuffer())).toBe(true)
  })

  it('keeps the XMP and EXIF of an extended file', async () => {
    const { bytes } = await encodeImage(image, 'webp', {
      xmp: '<x:xmpmeta xmlns:x="adobe:ns:meta/"/>',
      exif: { image: { Make: 'Canon' }, photo: {}, gps: {} }
    })
    const meta = await sharp(bytes).metadata()
    expect(meta.icc?.toString('latin1', 16, 20)).toBe('RGB ')
    expect(meta.exif!.includes('Canon')).toBe(true)
    expect(meta.xmp!.toString()).toContain('xmpmeta')
  })
})

describe('tiffWithIcc', () => {
  it.each([
    ['8-bit RGBA', false],
    ['16-bit RGBA', true]
  ] as const)('%s: readers find the profile, pixels untouched, XMP kept', async (_name, deep) => {
    const icc = matrixProfile()
    let pipeline = sharp(image.data, { raw: { width: 16, height: 16, channels: 4 } }).withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"/>')
    if (deep) pipeline = pipeline.toColourspace('rgb16')
    const tiff = await pipeline.tiff({ compression: 'lzw', predictor: 'horizontal' }).toBuffer()
    const tagged = tiffWithIcc(tiff, icc)
    const meta = await sharp(tagged).metadata()
    expect(Buffer.compare(meta.icc!, icc)).toBe(0)
    expect([meta.width, meta.height, meta.depth, meta.channels]).toEqual([16, 16, deep ? 'ushort' : 'uchar', 4])
    expect(meta.xmp!.toString()).toContain('xmpmeta')
    const raw = (b: Buffer) =>
      sharp(b, { ignoreIcc: true })
        .raw({ depth: deep ? 'ushort' : 'uchar' })
        .toBuffer()
    expect((await raw(tagged)).equals(await raw(tiff))).toBe(true)
  })

  it('replaces a profile already there', async () => {
    const tiff = await sharp(image.data, { raw: { width: 16, height: 16, channels: 4 } })
      .tiff()
      .toBuffer()
    const once = tiffWithIcc(tiff, matrixProfile())
    const other = matrixProfile({
      description: 'Other',
      red: [0.6, 0.3, 0.02],
      green: [0.2, 0.6, 0.06],
      blue: [0.15, 0.06, 0.75],
      gamma: 2.2
    })
    expect(Buffer.compare((await sharp(tiffWithIcc(once, other)).metadata()).icc!, other)).toBe(0)
  })
})
