/**
 * 16-bit and ICC-tagged inputs through the whole pipeline (real sharp, real lcms; a stand-in
 * mask, so the edge is known): outputs keep the input's depth and profile, and its colours.
 */
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { CLIPPING_DEFAULTS, type JobParams } from '../../../../shared/params-types'
import { matrixProfile } from '../../../../../test/fixtures/icc-fixtures'
import { decodeImage } from '../decode/decode'
import { processJob } from '../index'
import { iccProfile, withIccChunk } from '../decode/decode-psd'
import { readPsd } from 'ag-psd'
import { psdWithoutCanvas } from '../../../../../test/helpers/psd'

const MAX = 100_000_000

psdWithoutCanvas()
const W = 1200
const H = 12
/**
 * The subject is x < SUBJECT_END; the mask ramps from 255 down to 0 over the RAMP pixels before
 * it: 8 bits draw it as steps about 4 px wide.
 */
const SUBJECT_END = 1100
const RAMP = 1000

/** A stand-in model: opaque left part, a long linear ramp, then background. */
const rampSegmenter = {
  segment: async (image: { width: number; height: number }) => {
    const mask = Buffer.alloc(image.width * image.height)
    for (let y = 0; y < image.height; y++) {
      for (let x = 0; x < image.width; x++) {
        const a = x < SUBJECT_END - RAMP ? 1 : x >= SUBJECT_END ? 0 : (SUBJECT_END - x) / RAMP
        mask[y * image.width + x] = Math.round(255 * a)
      }
    }
    return mask
  }
}

const params = (over: Partial<JobParams> = {}): JobParams => ({ ...CLIPPING_DEFAULTS, refine: 'none', ...over })

/** 16-bit RGB whose values are not multiples of 257 (no 8-bit image holds them). */
function deepPixels(): Uint16Array {
  const px = new Uint16Array(W * H * 3)
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 3
      px[i] = 1000 + x * 37
      px[i + 1] = 20000 + y * 311
      px[i + 2] = 50001 - x * 29
    }
  }
  return px
}

async function deepPng(): Promise<Buffer> {
  return sharp(deepPixels(), { raw: { width: W, height: H, channels: 3 } })
    .toColourspace('rgb16')
    .png()
    .toBuffer()
}

async function raw16(bytes: Buffer): Promise<Uint16Array> {
  const data = await sharp(bytes, { ignoreIcc: true }).toColourspace('rgb16').ensureAlpha().raw({ depth: 'ushort' }).toBuffer()
  return new Uint16Array(data.buffer, data.byteOffset, data.length / 2)
}

describe('16-bit inputs', () => {
  it.each(['png', 'tiff'] as const)(
    'give a 16-bit %s whose subject keeps the input values and whose soft edge is smooth',
    async (format) => {
      const result = await processJob(await deepPng(), { segmenter: rampSegmenter }, { format, params: params(), maxPixels: MAX })
      const bytes = result.outputs[0]!.bytes
      const meta = await sharp(bytes).metadata()
      expect(meta.depth).toBe('ushort')
      expect(meta.icc?.toString('latin1', 16, 20)).toBe('RGB ') // tagged sRGB
      const out = await raw16(bytes)
      const input = deepPixels()
      for (const [x, y] of [
        [0, 0],
        [57, 7],
        [SUBJECT_END - RAMP - 1, H - 1]
      ]) {
        const i = y! * W + x!
        expect([out[i * 4], out[i * 4 + 1], out[i * 4 + 2], out[i * 4 + 3]]).toEqual([
          input[i * 3],
          input[i * 3 + 1],
          input[i * 3 + 2],
          65535
        ])
      }
      // The soft edge of one row: 8 bits can hold 256 levels; made 16-bit smoothly, the ramp has
      // many more, and it never steps back.
      const row = H >> 1
      const ramp: number[] = []
      for (let x = SUBJECT_END - RAMP; x < SUBJECT_END; x++) ramp.push(out[(row * W + x) * 4 + 3]!)
      const levels = new Set(ramp)
      console.log(`${format}: ${levels.size} alpha levels over a ${RAMP}-pixel soft edge`)
      expect(levels.size).toBeGreaterThan(600)
      expect(ramp.every((a, i) => i === 0 || a <= ramp[i - 1]!)).toBe(true)
    }
  )

  it('alpha=keep keeps a 16-bit input alpha as it is', async () => {
    const rgba = new Uint16Array(W * H * 4)
    const rgb = deepPixels()
    for (let i = 0; i < W * H; i++) {
      rgba.set([rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!], i * 4)
      rgba[i * 4 + 3] = Math.round((65535 * (i % W)) / (W - 1)) // a 16-bit ramp
    }
    const png = await sharp(rgba, { raw: { width: W, height: H, channels: 4 } })
      .toColourspace('rgb16')
      .png()
      .toBuffer()
    const result = await processJob(png, { segmenter: rampSegmenter }, { format: 'png', params: params({ alpha: 'keep' }), maxPixels: MAX })
    const out = await raw16(result.outputs[0]!.bytes)
    for (const x of [1, 333, 777, W - 1])
      expect([out[(7 * W + x) * 4 + 1], out[(7 * W + x) * 4 + 3]]).toEqual([rgba[(7 * W + x) * 4 + 1], rgba[(7 * W + x) * 4 + 3]])
  })

  it('is decoded to 8 bits, with a warning, when its own pixels would not fit in the decoder’s memory', async () => {
    const decoded = await decodeImage(await deepPng(), { maxPixels: MAX, memoryBytes: W * H * 20 })
    expect(decoded.native).toBeNull()
    expect(decoded.warnings).toEqual([
      `metadata: the image is too large to keep its 16-bit depth within the decoder's memory (0 MB); the output is 8-bit sRGB`
    ])
    expect((await decodeImage(await deepPng(), { maxPixels: MAX, memoryBytes: W * H * 40 })).native?.depth).toBe(16)
  })

  it('gives an 8-bit JPEG, rounded from the 16-bit values', async () => {
    const result = await processJob(
      await deepPng(),
      { segmenter: rampSegmenter },
      { format: 'jpg', params: params({ background: { kind: 'color', rgba: [255, 255, 255, 255] } }), maxPixels: MAX }
    )
    expect((await sharp(result.outputs[0]!.bytes).metadata()).depth).toBe('uchar')
  })
})

/** A flat 16-bit RGB PSD (no layers, raw planes) holding `deepPixels`: ag-psd writes only 8 bits. */
function deepPsd(): Buffer {
  const px = deepPixels()
  const head = Buffer.alloc(26 + 12 + 2)
  head.write('8BPS', 0, 'latin1')
  head.writeUInt16BE(1, 4)
  head.writeUInt16BE(3, 12)
  head.writeUInt32BE(H, 14)
  head.writeUInt32BE(W, 18)
  head.writeUInt16BE(16, 22)
  head.writeUInt16BE(3, 24) // RGB
  // Colour mode data, image resources, layer and mask info: all empty; then raw image data.
  const planes = Buffer.alloc(W * H * 3 * 2)
  for (let c = 0; c < 3; c++) for (let i = 0; i < W * H; i++) planes.writeUInt16BE(px[i * 3 + c]!, (c * W * H + i) * 2)
  return Buffer.concat([head, planes])
}

describe('a 16-bit PSD input', () => {
  it('gives a 16-bit PNG holding its values inside the subject; a PSD output is 8-bit', async () => {
    const result = await processJob(deepPsd(), { segmenter: rampSegmenter }, { format: 'png', params: params(), maxPixels: MAX })
    const out = await raw16(result.outputs[0]!.bytes)
    const input = deepPixels()
    const i = 5 * W + 40
    expect([out[i * 4], out[i * 4 + 1], out[i * 4 + 2], out[i * 4 + 3]]).toEqual([input[i * 3], input[i * 3 + 1], input[i * 3 + 2], 65535])
    const psd = await processJob(deepPsd(), { segmenter: rampSegmenter }, { format: 'psd', params: params(), maxPixels: MAX })
    const bytes = psd.outputs[0]!.bytes
    expect(bytes.readUInt16BE(22)).toBe(8)
    // Its values rounded to 8 bits, in the composite and in the Subject layer.
    const doc = readPsd(bytes, { useImageData: true })
    const rounded = [0, 1, 2].map((c) => Math.round(input[i * 3 + c]! / 257))
    expect([...doc.imageData!.data.subarray(i * 4, i * 4 + 3)]).toEqual(rounded)
    expect([...doc.children![0]!.imageData!.data.subarray(i * 4, i * 4 + 3)]).toEqual(rounded)
  })
})

describe('an Adobe RGB (1998) input', () => {
  const icc = matrixProfile()

  /** A saturated green no sRGB image can hold, and a mid tone, in Adobe RGB values. */
  async function adobePng(): Promise<Buffer> {
    const px = Buffer.alloc(W * H * 3)
    for (let i = 0; i < W * H; i++) px.set(i % W < 50 ? [20, 230, 40] : [180, 120, 90], i * 3)
    const png = await sharp(px, { raw: { width: W, height: H, channels: 3 } })
      .png()
      .toBuffer()
    return withIccChunk(png, icc)
  }

  async function asSrgb(bytes: Buffer): Promise<Buffer> {
    return sharp(bytes).toColourspace('srgb').ensureAlpha().raw().toBuffer()
  }

  it.each(['png', 'jpg', 'webp', 'tiff'] as const)('gives a %s tagged with its profile that shows the same colours', async (format) => {
    const input = await adobePng()
    const result = await processJob(input, { segmenter: rampSegmenter }, { format, params: params(), maxPixels: MAX })
    const bytes = result.outputs[0]!.bytes
    const meta = await sharp(bytes).metadata()
    expect(meta.icc && Buffer.compare(meta.icc, icc)).toBe(0)
    // The pixel values are the input's own (Adobe RGB numbers), not converted ones.
    const own = await sharp(bytes, { ignoreIcc: true }).ensureAlpha().raw().toBuffer()
    const ownIn = await sharp(input, { ignoreIcc: true }).ensureAlpha().raw().toBuffer()
    const tolerance = format === 'jpg' || format === 'webp' ? 6 : 0
    for (const x of [5, 80]) {
      for (let c = 0; c < 3; c++) expect(Math.abs(own[x * 4 + c]! - ownIn[x * 4 + c]!)).toBeLessThanOrEqual(tolerance)
    }
    // Rendered in sRGB (as a viewer does), input and output look alike inside the subject.
    const seen = await asSrgb(bytes)
    const seenIn = await asSrgb(input)
    for (const x of [5, 80]) {
      for (let c = 0; c < 3; c++) expect(Math.abs(seen[x * 4 + c]! - seenIn[x * 4 + c]!)).toBeLessThanOrEqual(tolerance + 1)
    }
  })

  it('gives a layered PSD in its own space, tagged with its profile', async () => {
    const input = await adobePng()
    const composed = params({ background: { kind: 'color', rgba: [255, 0, 0, 255] }, variations: ['compose'], primary: 'compose' })
    const bytes = (await processJob(input, { segmenter: rampSegmenter }, { format: 'psd', params: composed, maxPixels: MAX })).outputs[0]!
      .bytes
    expect(Buffer.compare(iccProfile(bytes)!, icc)).toBe(0)
    const doc = readPsd(bytes, { useImageData: true })
    const own = await sharp(input, { ignoreIcc: true }).ensureAlpha().raw().toBuffer()
    const [background, subject] = doc.children!
    expect([background!.name, subject!.name]).toEqual(['Background', 'Subject'])
    expect([...subject!.imageData!.data.subarray(5 * 4, 5 * 4 + 4)]).toEqual([...own.subarray(5 * 4, 5 * 4 + 4)])
    expect([...doc.imageData!.data.subarray(5 * 4, 5 * 4 + 3)]).toEqual([...own.subarray(5 * 4, 5 * 4 + 3)])
    // The background is sRGB red in Adobe RGB numbers, as in the other formats.
    const red = [...background!.imageData!.data.subarray(0, 3)]
    expect(red[0]).toBeLessThan(255)
    expect(red[1]).toBe(0)
  })

  it('gets a hex background converted into its space: it shows as the colour asked for', async () => {
    const result = await processJob(
      await adobePng(),
      { segmenter: rampSegmenter },
      {
        format: 'png',
        params: params({ background: { kind: 'color', rgba: [255, 0, 0, 255] }, variations: ['compose'], primary: 'compose' }),
        maxPixels: MAX
      }
    )
    const bytes = result.outputs[0]!.bytes
    const seen = await asSrgb(bytes)
    const x = W - 1 // background only
    expect(seen[x * 4]).toBeGreaterThanOrEqual(254)
    expect(seen[x * 4 + 1]).toBeLessThanOrEqual(1)
    expect(seen[x * 4 + 2]).toBeLessThanOrEqual(1)
    const own = await sharp(bytes, { ignoreIcc: true }).raw().toBuffer()
    expect(own[x * 4 + 1]).toBe(0) // sRGB red is not (255, 0, 0) in Adobe RGB numbers…
    expect(own[x * 4]).toBeLessThan(255) // …its red is less than full
  })
})

describe('plain 8-bit sRGB inputs', () => {
  it('give outputs tagged sRGB with the same pixels', async () => {
    const px = Buffer.alloc(W * H * 3, 128)
    const input = await sharp(px, { raw: { width: W, height: H, channels: 3 } })
      .png()
      .toBuffer()
    const result = await processJob(input, { segmenter: rampSegmenter }, { format: 'png', params: params(), maxPixels: MAX })
    const bytes = result.outputs[0]!.bytes
    const meta = await sharp(bytes).metadata()
    expect(meta.depth).toBe('uchar')
    expect(meta.icc?.toString('latin1', 16, 20)).toBe('RGB ')
    const out = await sharp(bytes).raw().toBuffer()
    expect([...out.subarray(0, 4)]).toEqual([128, 128, 128, 255])
  })
})

describe('inputs whose outputs are sRGB', () => {
  const px = () => {
    const rgb = Buffer.alloc(W * H * 3)
    for (let i = 0; i < rgb.length; i++) rgb[i] = (i * 13) & 255
    return sharp(rgb, { raw: { width: W, height: H, channels: 3 } })
  }

  it('a CMYK JPEG is converted to sRGB and tagged so', async () => {
    const cmyk = await px().toColourspace('cmyk').jpeg().toBuffer()
    expect((await sharp(cmyk).metadata()).space).toBe('cmyk')
    const decoded = await decodeImage(cmyk, { maxPixels: MAX })
    expect(decoded.native).toBeNull()
    const result = await processJob(cmyk, { segmenter: rampSegmenter }, { format: 'png', params: params(), maxPixels: MAX })
    const meta = await sharp(result.outputs[0]!.bytes).metadata()
    expect([meta.space, meta.depth, meta.icc?.toString('latin1', 16, 20)]).toEqual(['srgb', 'uchar', 'RGB '])
  })

  it('an input tagged sRGB needs no second copy of its pixels', async () => {
    const tagged = await px().withIccProfile('srgb').png().toBuffer()
    expect((await sharp(tagged).metadata()).icc).toBeDefined()
    expect((await decodeImage(tagged, { maxPixels: MAX })).native).toBeNull()
  })
})

describe('a profile colours cannot be converted into', () => {
  it('gives sRGB outputs and says so, rather than mislabelled colours', async () => {
    // Three equal primaries: lcms reads colours out of it, but cannot invert it to write any.
    const flat = matrixProfile({ description: 'Flat', red: [0.3, 0.3, 0.3], green: [0.3, 0.3, 0.3], blue: [0.3, 0.3, 0.3], gamma: 2.2 })
    const rgb = Buffer.alloc(W * H * 3)
    for (let i = 0; i < rgb.length; i += 3) rgb.set([200, 60, 30], i)
    const input = withIccChunk(
      await sharp(rgb, { raw: { width: W, height: H, channels: 3 } })
        .png()
        .toBuffer(),
      flat
    )
    const decoded = await decodeImage(input, { maxPixels: MAX })
    expect(decoded.native).not.toBeNull()
    // A clipping needs no conversion: the input's own numbers with its own profile.
    const clipping = await processJob(input, { segmenter: rampSegmenter }, { format: 'png', params: params(), maxPixels: MAX })
    expect(Buffer.compare((await sharp(clipping.outputs[0]!.bytes).metadata()).icc!, flat)).toBe(0)
    // A background colour must be converted into it, which cannot be done.
    const composed = params({ background: { kind: 'color', rgba: [255, 255, 255, 255] }, variations: ['compose'], primary: 'compose' })
    const result = await processJob(input, { segmenter: rampSegmenter }, { format: 'png', params: composed, maxPixels: MAX })
    const meta = await sharp(result.outputs[0]!.bytes).metadata()
    expect(meta.icc && Buffer.compare(meta.icc, flat)).not.toBe(0)
    expect(meta.icc?.toString('latin1', 16, 20)).toBe('RGB ')
    expect(result.warnings.compose?.join(' ')).toContain('the output is in sRGB')
  })
})
