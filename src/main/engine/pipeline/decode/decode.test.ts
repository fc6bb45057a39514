import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32, gzipSync } from 'node:zlib'
import { writePsdBuffer } from 'ag-psd'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JobFailure } from '../../errors'
import { decodeImage } from './decode'
import { iccProfile } from './decode-psd'
import { solidRgba } from '../../../../../test/fixtures/test-fixtures'

const MAX = 100_000_000

/** A 4×2 RGBA image: opaque red, green, blue, white on top; half-transparent grey, clear below. */
function palette(): Buffer {
  return Buffer.from([
    255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255, 128, 128, 128, 128, 128, 128, 128, 128, 0, 0, 0, 0, 0, 0, 0, 0
  ])
}
const raw = (data: Buffer, width: number, height: number, channels: 1 | 2 | 3 | 4 = 4) => sharp(data, { raw: { width, height, channels } })

function pixel(img: { data: Buffer; width: number }, x: number, y: number): number[] {
  const i = (y * img.width + x) * 4
  return [...img.data.subarray(i, i + 4)]
}

function expectClose(actual: number[], expected: number[], tolerance: number): void {
  expect(actual).toHaveLength(expected.length)
  for (const [i, v] of actual.entries())
    expect(Math.abs(v - expected[i]!), `channel ${i}: ${v} vs ${expected[i]}`).toBeLessThanOrEqual(tolerance)
}

/** Largest per-channel difference between two RGBA buffers. */
function maxDiff(a: Buffer, b: Buffer): number {
  expect(a.length).toBe(b.length)
  let d = 0
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!))
  return d
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

/** A 32×16 RGBA gradient with a soft alpha ramp: exercises every channel value range. */
function gradient(width = 32, height = 16): Buffer {
  const data = Buffer.alloc(width * height * 4)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) data.set([x * 8, y * 16, 255 - x * 8, 255 - ((x * 8) >> 1)], (y * width + x) * 4)
  return data
}

/** Stored pure sRGB red, converted into Display P3 and tagged with the P3 profile. */
async function p3Red(): Promise<Buffer> {
  return raw(solidRgba(4, 4, [255, 0, 0, 255]), 4, 4)
    .withIccProfile('p3')
    .png()
    .toBuffer()
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

describe('decodeImage: SVG', () => {
  it('is rendered, transparent where nothing is drawn', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="20" height="30" fill="#00ff00"/></svg>'
    )
    const img = await decodeImage(svg, { maxPixels: MAX })
    expect([img.width, img.height]).toEqual([40, 30])
    expect(pixel(img, 5, 15)).toEqual([0, 255, 0, 255])
    expect(pixel(img, 35, 15)[3]).toBe(0)
    expect(img.hasAlpha).toBe(true)
  })

  it('compressed (svgz) is rendered too', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="#0000ff"/></svg>'
    const img = await decodeImage(gzipSync(svg), { maxPixels: MAX })
    expect(pixel(img, 5, 5)).toEqual([0, 0, 255, 255])
  })

  describe('with external references', () => {
    let dir: string
    let server: ReturnType<typeof createServer>
    let base: string
    const requests: string[] = []
    let redPng: Buffer

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'clipdesk-svg-'))
      redPng = await raw(solidRgba(4, 4, [255, 0, 0, 255]), 4, 4)
        .png()
        .toBuffer()
      writeFileSync(join(dir, 'red.png'), redPng)
      writeFileSync(join(dir, 'secret.txt'), 'SECRET SECRET SECRET')
      writeFileSync(
        join(dir, 'red.svg'),
        '<svg xmlns="http://www.w3.org/2000/svg" id="g"><rect id="r" width="40" height="40" fill="red"/></svg>'
      )
      // Answers every request with a red PNG, and records it: no request may ever arrive.
      server = createServer((req, res) => {
        requests.push(req.url ?? '')
        res.writeHead(200, { 'content-type': 'image/png' }).end(redPng)
      })
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    })
    afterAll(async () => {
      await new Promise((r) => server.close(r))
      rmSync(dir, { recursive: true, force: true })
    })

    const cases: Array<[string, (base: string, dir: string) => string]> = [
      ['http <image href>', (b) => `<image href="${b}/a.png" width="40" height="40"/>`],
      ['http <image xlink:href>', (b) => `<image xlink:href="${b}/b.png" width="40" height="40"/>`],
      ['file: <image href>', (_, d) => `<image href="file://${d}/red.png" width="40" height="40"/>`],
      ['absolute path <image href>', (_, d) => `<image href="${d}/red.png" width="40" height="40"/>`],
      ['relative <image href>', () => `<image href="red.png" width="40" height="40"/>`],
      ['character-escaped http href', (b) => `<image href="&#104;${b.slice(1)}/c.png" width="40" height="40"/>`],
      ['<use> of another file', (_, d) => `<use href="file://${d}/red.svg#r"/>`],
      ['<use> over http', (b) => `<use xlink:href="${b}/u.svg#r"/>`],
      ['CSS url() fill', (b) => `<rect width="40" height="40" style="fill: url('${b}/f.svg#g')"/>`],
      ['CSS @import', (b) => `<style>@import url(${b}/s.css);</style>`],
      ['CSS background image', (b) => `<style>rect { fill: url(${b}/p.svg#p) }</style><rect width="40" height="40"/>`],
      ['XInclude of a file', (_, d) => `<text x="0" y="20" font-size="20"><xi:include href="file://${d}/secret.txt" parse="text"/></text>`],
      ['XInclude over http', (b) => `<text x="0" y="20" font-size="20"><xi:include href="${b}/x.txt" parse="text"/></text>`]
    ]

    it.each(cases)('%s: nothing fetched or read, nothing drawn', async (_name, element) => {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:xi="http://www.w3.org/2001/XInclude" width="40" height="40">${element(base, dir)}</svg>`
      const img = await decodeImage(Buffer.from(svg), { maxPixels: MAX })
      expect([img.width, img.height]).toEqual([40, 40])
      for (let i = 3; i < img.data.length; i += 4) expect(img.data[i]).toBe(0)
      expect(requests).toEqual([])
    })

    it.each([
      ['file', (_: string, d: string) => `file://${d}/secret.txt`],
      ['http', (b: string) => `${b}/entity.txt`]
    ])('an external entity (%s) is neither fetched nor read: the document is refused', async (_name, target) => {
      const svg = `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "${target(base, dir)}">]><svg xmlns="http://www.w3.org/2000/svg" width="100" height="30"><text x="0" y="20" font-size="20">&x;</text></svg>`
      const err = await failure(decodeImage(Buffer.from(svg), { maxPixels: MAX }))
      expect(err.reason).toBe('unsupported_image')
      expect(err.message).toContain('not well-formed XML')
      expect(requests).toEqual([])
    })

    it('internal references and inline data still work', async () => {
      const dataUrl = `data:image/png;base64,${redPng.toString('base64')}`
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="20">
        <defs><linearGradient id="g"><stop offset="0" stop-color="#00f"/><stop offset="1" stop-color="#00f"/></linearGradient>
        <rect id="r" width="10" height="20" fill="url(#g)"/></defs>
        <use xlink:href="#r"/><image href="${dataUrl}" x="20" width="20" height="20"/></svg>`
      const img = await decodeImage(Buffer.from(svg), { maxPixels: MAX })
      expect(pixel(img, 5, 10)).toEqual([0, 0, 255, 255])
      expect(pixel(img, 15, 10)[3]).toBe(0)
      expect(pixel(img, 30, 10)).toEqual([255, 0, 0, 255])
      expect(requests).toEqual([])
    })
  })
})

/** An 8-bit RGB(A) PSD written by ag-psd, with one layer and the composite. */
function psdOf(data: Uint8ClampedArray, width: number, height: number): Buffer {
  const imageData = { width, height, data }
  return writePsdBuffer({ width, height, imageData, children: [{ name: 'Layer 1', imageData }] })
}

/** The PSD with `icc` added as image resource 1039 (ag-psd does not write one). */
function withIccResource(psd: Buffer, icc: Buffer): Buffer {
  const resourcesAt = 26 + 4 + psd.readUInt32BE(26)
  const block = Buffer.alloc(4 + 2 + 2 + 4 + icc.length + (icc.length & 1))
  block.write('8BIM', 0, 'latin1')
  block.writeUInt16BE(1039, 4)
  // Empty Pascal name: length byte 0 plus one pad byte.
  block.writeUInt32BE(icc.length, 8)
  icc.copy(block, 12)
  const out = Buffer.concat([psd.subarray(0, resourcesAt + 4), block, psd.subarray(resourcesAt + 4)])
  out.writeUInt32BE(psd.readUInt32BE(resourcesAt) + block.length, resourcesAt)
  return out
}

describe('decodeImage: PSD (ag-psd composite)', () => {
  it('opaque RGB: exact composite pixels', async () => {
    const src = solidRgba(6, 3, [0, 0, 0, 255])
    for (let i = 0; i < 18; i++) src.set([i * 10, 200 - i * 5, 33], i * 4)
    const img = await decodeImage(psdOf(new Uint8ClampedArray(src), 6, 3), { maxPixels: MAX })
    expect([img.width, img.height]).toEqual([6, 3])
    expect(img.data.equals(src)).toBe(true)
    expect(img.hasAlpha).toBe(false)
    expect(img.warnings).toEqual([])
  })

  it('transparent composite: alpha kept', async () => {
    const src = Buffer.from(palette())
    const img = await decodeImage(psdOf(new Uint8ClampedArray(src), 4, 2), { maxPixels: MAX })
    expect(pixel(img, 0, 0)).toEqual([255, 0, 0, 255])
    expectClose(pixel(img, 0, 1), [128, 128, 128, 128], 2)
    expect(pixel(img, 3, 1)[3]).toBe(0)
    expect(img.hasAlpha).toBe(true)
  })

  it('an embedded ICC profile is converted to sRGB', async () => {
    const icc = (await sharp(await p3Red()).metadata()).icc!
    expect(icc.toString('latin1', 16, 20)).toBe('RGB ')
    // P3 values of sRGB red, stored in a PSD tagged P3.
    const stored = await sharp(await p3Red(), { ignoreIcc: true })
      .ensureAlpha()
      .raw()
      .toBuffer()
    const psd = withIccResource(psdOf(new Uint8ClampedArray(stored), 4, 4), icc)
    expect(iccProfile(psd)?.equals(icc)).toBe(true)
    const img = await decodeImage(psd, { maxPixels: MAX })
    expectClose(pixel(img, 2, 2), [255, 0, 0, 255], 2)
  })

  it('iccProfile: null when the document has none', () => {
    expect(iccProfile(psdOf(new Uint8ClampedArray(16), 2, 2))).toBeNull()
    expect(iccProfile(Buffer.from('not a psd'))).toBeNull()
  })

  it('refuses, from the header alone, a PSD claiming 100000×100000', async () => {
    const psd = psdOf(new Uint8ClampedArray(16), 2, 2)
    psd.writeUInt32BE(100_000, 14)
    psd.writeUInt32BE(100_000, 18)
    const err = await failure(decodeImage(psd, { maxPixels: MAX }))
    expect(err.reason).toBe('image_too_large')
    expect(err.message).toBe('the image is 100000×100000 (10000.0 MP), over the limit of 100.0 MP')
  })

  it('refuses a damaged header', async () => {
    const err = await failure(decodeImage(Buffer.concat([Buffer.from('8BPS', 'latin1'), Buffer.alloc(10)]), { maxPixels: MAX }))
    expect(err.reason).toBe('unsupported_image')
    expect(err.message).toBe('the psd header is damaged or incomplete')
  })

  it('refuses a PSD ag-psd cannot read', async () => {
    const psd = psdOf(new Uint8ClampedArray(16), 2, 2)
    psd.writeUInt16BE(9, 24) // colour mode 9: Lab
    const err = await failure(decodeImage(psd, { maxPixels: MAX }))
    expect(err.reason).toBe('unsupported_image')
    expect(err.message).toBe('the psd image cannot be decoded: Color mode not supported: lab')
  })
})

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
