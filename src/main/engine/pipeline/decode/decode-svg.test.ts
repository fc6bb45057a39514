import { gzipSync } from 'node:zlib'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { failure } from '../../errors.fixtures'
import { prepareSvg } from './decode-svg'

const LIMITS = { maxBytes: 1024 * 1024, maxPixels: 100_000_000 }

const reason = async (p: Promise<unknown>): Promise<string> => (await failure(p)).reason

describe('prepareSvg', () => {
  it('inflates svgz, then cleans', async () => {
    const out = await prepareSvg(gzipSync('<svg><image href="http://x/a.png"/><rect width="1"/></svg>'), LIMITS)
    expect(out.bytes.toString()).toBe('<svg><rect width="1"></rect></svg>')
    expect(out.embeddedPixels).toBe(0)
  })

  it('refuses svgz that inflates past the limit, or is not gzip', async () => {
    expect(await reason(prepareSvg(gzipSync(Buffer.alloc(4096, 32)), { ...LIMITS, maxBytes: 1024 }))).toBe('unsupported_image')
    expect(await reason(prepareSvg(Buffer.from([0x1f, 0x8b, 0, 0]), LIMITS))).toBe('unsupported_image')
  })

  it('counts the pixels of inline images, and refuses them past the limit', async () => {
    // A 3000×3000 PNG of one colour compresses to a few KB: small file, many pixels.
    const png = await sharp({ create: { width: 3000, height: 3000, channels: 3, background: '#f00' } })
      .png()
      .toBuffer()
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="data:image/png;base64,${png.toString('base64')}" width="10" height="10"/></svg>`
    expect((await prepareSvg(Buffer.from(svg), LIMITS)).embeddedPixels).toBe(9_000_000)
    expect(await reason(prepareSvg(Buffer.from(svg), { ...LIMITS, maxPixels: 8_000_000 }))).toBe('image_too_large')
    const twice = svg.replace('</svg>', `<image href="data:image/png;base64,${png.toString('base64')}"/></svg>`)
    expect(await reason(prepareSvg(Buffer.from(twice), { ...LIMITS, maxPixels: 10_000_000 }))).toBe('image_too_large')
  })

  it('refuses an inline image that cannot be read, and a document that is not SVG', async () => {
    const svg = '<svg><image href="data:image/png;base64,AAAA"/></svg>'
    expect(await reason(prepareSvg(Buffer.from(svg), LIMITS))).toBe('unsupported_image')
    expect(await reason(prepareSvg(Buffer.from('<html><svg/></html>'), LIMITS))).toBe('unsupported_image')
  })
})
