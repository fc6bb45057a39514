/**
 * Hostile image bytes (fast-check): mutated PNG/JPEG/TIFF/GIF/WebP/SVG/PSD files through the
 * intake check and the decoder. Each ends with a clear refusal (422 at upload, or a JobFailure
 * with a reason) or a decoded image — never another exception, never a hang, memory bounded.
 * Decompression bombs are refused from their header, before any pixel is decoded.
 */
import { deflateSync } from 'node:zlib'
import { writePsdBuffer } from 'ag-psd'
import fc from 'fast-check'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FAILURE_REASONS } from '../src/shared/errors'
import { JobFailure } from '../src/main/engine/errors'
import { decodeImage } from '../src/main/engine/pipeline/decode/decode'
import { multipart, startTestServer, type TestServer } from './helpers/engine'
import { json } from './helpers/http'

const MAX_PIXELS = 100_000_000
let server: TestServer
const seeds: Record<string, Buffer> = {}

beforeAll(async () => {
  server = await startTestServer({ run: false, maxQueuedJobs: 1_000_000 })
  const base = sharp({ create: { width: 48, height: 32, channels: 4, background: { r: 200, g: 40, b: 90, alpha: 0.8 } } })
  seeds.png = await base.clone().png().toBuffer()
  seeds.jpeg = await base.clone().jpeg().toBuffer()
  seeds.tiff = await base.clone().tiff().toBuffer()
  seeds.gif = await base.clone().gif().toBuffer()
  seeds.webp = await base.clone().webp().toBuffer()
  const { data } = await base.clone().raw().toBuffer({ resolveWithObject: true })
  const imageData = { width: 48, height: 32, data: new Uint8ClampedArray(data) }
  seeds.psd = Buffer.from(writePsdBuffer({ width: 48, height: 32, imageData, children: [{ name: 'Layer', imageData }] }))
  seeds.svg = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="32"><rect width="48" height="32" fill="#c82"/><circle cx="24" cy="16" r="10" fill="#246"/></svg>'
  )
})
afterAll(() => server.close())

/** Flips, overwrites, inserts or cuts bytes of a valid file. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }) }),
  fc.record({ kind: fc.constant('zero' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 64 }) })
)

function mutate(seed: Buffer, edits: Array<Record<string, any>>): Buffer {
  let b = Buffer.from(seed)
  for (const m of edits) {
    const at = m.at % Math.max(1, b.length)
    if (m.kind === 'flip') b[at] = m.value
    else if (m.kind === 'cut') b = b.subarray(0, at)
    else if (m.kind === 'insert') b = Buffer.concat([b.subarray(0, at), Buffer.from(m.bytes), b.subarray(at)])
    else b.fill(0, at, Math.min(b.length, at + m.length))
  }
  return b
}

async function withinTime<T>(p: Promise<T>, ms = 15_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))
  try {
    return await Promise.race([p, timeout])
  } finally {
    clearTimeout(timer)
  }
}

describe.each(['png', 'jpeg', 'tiff', 'gif', 'webp', 'svg', 'psd'])('mutated %s', (kind) => {
  it('decodes or fails with a JobFailure reason, in bounded time (150 cases)', async () => {
    const rssBefore = process.memoryUsage().rss
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), async (edits) => {
        const bytes = mutate(seeds[kind]!, edits)
        try {
          const img = await withinTime(decodeImage(bytes, { maxPixels: MAX_PIXELS }))
          expect(img.data.length).toBe(img.width * img.height * 4)
        } catch (err) {
          expect(err).toBeInstanceOf(JobFailure)
          expect(FAILURE_REASONS).toContain((err as JobFailure).reason)
        }
      }),
      { numRuns: 150 }
    )
    // Memory stays bounded: no mutated header made the decoder allocate gigabytes.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(512 * 1024 * 1024)
  })

  it('is answered 202 or a clear 422 at upload (60 cases)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (edits) => {
        const bytes = mutate(seeds[kind]!, edits)
        const res = await withinTime(
          fetch(server.url('/api/v1/upload'), {
            method: 'POST',
            headers: { 'X-API-Key': server.key },
            body: multipart({}, { bytes, type: 'image/png' })
          })
        )
        const body = await json(res)
        if (res.status !== 202) {
          expect(res.status).toBe(422)
          expect(['validation_failed', 'image_too_large']).toContain(body.error.code)
        }
      }),
      { numRuns: 60 }
    )
  })
})

/** A valid 1-bit PNG header claiming width × height pixels, with a tiny compressed body. */
function pngBomb(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    return c >>> 0
  })
  const crc = (b: Buffer) => {
    let c = 0xffffffff
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8)
    return (c ^ 0xffffffff) >>> 0
  }
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4)
    len.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const c = Buffer.alloc(4)
    c.writeUInt32BE(crc(body))
    return Buffer.concat([len, body, c])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 1 // bit depth
  ihdr[9] = 0 // greyscale
  // A few rows of zeros compress to almost nothing; a real bomb would repeat them.
  const idat = deflateSync(Buffer.alloc(64 * 1024))
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0))
  ])
}

describe('decompression bombs', () => {
  it('refuses a small PNG claiming 50,000² pixels at upload (422 image_too_large) and in the decoder', async () => {
    const bomb = pngBomb(50_000, 50_000)
    expect(bomb.length).toBeLessThan(2048)
    const res = await fetch(server.url('/api/v1/upload'), {
      method: 'POST',
      headers: { 'X-API-Key': server.key },
      body: multipart({}, { bytes: bomb, type: 'image/png' })
    })
    expect(res.status).toBe(422)
    expect((await json(res)).error.code).toBe('image_too_large')
    const rssBefore = process.memoryUsage().rss
    const err = await decodeImage(bomb, { maxPixels: MAX_PIXELS }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(JobFailure)
    expect((err as JobFailure).reason).toBe('image_too_large')
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * 1024 * 1024)
  })
})

/**
 * Generated SVG documents: CSS with `url(`/`@import`/escapes and long runs of spaces, references
 * of every spelling, filters, and inline images of random sizes and types. Through the decoder
 * (in this process, to see each outcome) and through the upload (the sandbox's probe).
 */
const cssPiece = fc.oneof(
  fc.constantFrom('url(', 'URL(', ')', '@import ', '\\', '#g', 'http://127.0.0.1:1/x', '"', "'", ';', '{', '}', 'fill:', 'rect', 'data:,'),
  fc.integer({ min: 1, max: 3000 }).map((n) => ' '.repeat(n))
)
const css = fc.array(cssPiece, { maxLength: 10 }).map((a) => a.join(''))
const href = fc.constantFrom(
  '#r',
  'http://127.0.0.1:1/a.png',
  'file:///etc/passwd',
  'a.png',
  ' #r ',
  'data:,',
  'data:image/svg+xml;base64,PHN2Zy8+',
  'javascript:x'
)
const filter = fc.constantFrom(
  '',
  '<feGaussianBlur stdDeviation="3"/>',
  '<feMorphology radius="2"/>',
  '<feTurbulence baseFrequency="0.1"/>',
  '<feImage href="http://127.0.0.1:1/x"/>'
)
const inlineImage = fc.record({
  width: fc.integer({ min: 1, max: 2500 }),
  height: fc.integer({ min: 1, max: 2500 }),
  format: fc.constantFrom('png' as const, 'jpeg' as const, 'gif' as const, 'webp' as const)
})
const svgDocument = fc.record({ css, style: css, href, filter, images: fc.array(inlineImage, { maxLength: 3 }) })

async function svgOf(doc: {
  css: string
  style: string
  href: string
  filter: string
  images: Array<{ width: number; height: number; format: 'png' | 'jpeg' | 'gif' | 'webp' }>
}): Promise<Buffer> {
  const attr = (s: string) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;')
  const images: string[] = []
  for (const img of doc.images) {
    // One colour: a few bytes for up to 6 MP, so the pixel count, not the file size, is tested.
    const bytes = await sharp({ create: { width: img.width, height: img.height, channels: 3, background: '#0a0' } })
      [img.format]()
      .toBuffer()
    images.push(`<image width="10" height="10" href="data:image/${img.format};base64,${bytes.toString('base64')}"/>`)
  }
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="32" height="32"><style>${attr(doc.css)}</style>` +
      `<filter id="f">${doc.filter}</filter><rect id="r" width="32" height="32" fill="#36c" style="${attr(doc.style)}" filter="url(#f)"/>` +
      `<use href="${attr(doc.href)}"/><image xlink:href="${attr(doc.href)}" width="8" height="8"/>${images.join('')}</svg>`
  )
}

describe('generated SVG: CSS, references, filters, inline images', () => {
  const limit = 8_000_000

  it('decodes or fails with a JobFailure reason; inline images past the limit are image_too_large (80 cases)', async () => {
    await fc.assert(
      fc.asyncProperty(svgDocument, async (doc) => {
        const embedded = doc.images.reduce((n, i) => n + i.width * i.height, 0)
        try {
          const img = await withinTime(decodeImage(await svgOf(doc), { maxPixels: limit }))
          expect([img.width, img.height]).toEqual([32, 32])
          expect(embedded + 32 * 32).toBeLessThanOrEqual(limit)
        } catch (err) {
          expect(err).toBeInstanceOf(JobFailure)
          if (embedded + 32 * 32 > limit) expect((err as JobFailure).reason).toBe('image_too_large')
        }
      }),
      { numRuns: 80 }
    )
  })

  it('is answered 202 or a clear 422 at upload (40 cases)', async () => {
    await fc.assert(
      fc.asyncProperty(svgDocument, async (doc) => {
        const res = await withinTime(
          fetch(server.url('/api/v1/upload'), {
            method: 'POST',
            headers: { 'X-API-Key': server.key },
            body: multipart({}, { bytes: await svgOf(doc), type: 'image/svg+xml' })
          })
        )
        const body = await json(res)
        if (res.status !== 202) {
          expect(res.status).toBe(422)
          expect(['validation_failed', 'image_too_large']).toContain(body.error.code)
        }
      }),
      { numRuns: 40 }
    )
  })
})
