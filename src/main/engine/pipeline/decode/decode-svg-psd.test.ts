import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { writePsdBuffer } from 'ag-psd'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { solidRgba } from '../../../../../test/fixtures/test-fixtures'
import { decodeImage } from './decode'
import { iccProfile } from './decode-psd'
import { expectClose, failure, MAX, p3Red, palette, pixel, raw } from './decode.fixtures'

// The two document formats decodeImage does not hand to sharp as they are: SVG, rendered with
// no external reference fetched or read (the cleaning itself: decode-svg.test.ts,
// svg-clean.test.ts), and PSD, read as ag-psd's composite with its colour profile applied.

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
