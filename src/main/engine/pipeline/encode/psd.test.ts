/**
 * PSD output read back: with ag-psd (layers, names, positions, the mask as a real layer mask,
 * the composite) and, where installed, with ImageMagick's `identify` (an independent reader).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readPsd, type Layer, type Psd } from 'ag-psd'
import { beforeAll, describe, expect, it } from 'vitest'
import { composeRect, GREY, paramsOf, RED } from '../../../../../test/fixtures/compose-fixtures'
import { encodeVariation } from './encode'
import type { ComposeResult } from '../compose/compose'
import { psdWithoutCanvas } from '../../../../../test/helpers/psd'

beforeAll(psdWithoutCanvas)

const HAS_IDENTIFY = spawnSync('identify', ['-version'], { encoding: 'utf8' }).status === 0

async function psdOf(result: ComposeResult, variation: string): Promise<{ bytes: Buffer; psd: Psd }> {
  const v = result.variations.find((x) => x.variation === variation)!
  const { bytes, warnings } = await encodeVariation(v, 'psd')
  expect(warnings).toEqual([])
  expect(bytes.toString('latin1', 0, 4)).toBe('8BPS')
  return { bytes, psd: readPsd(bytes, { useImageData: true }) }
}

/**
 * An independent look at the file's bytes (Adobe's "Photoshop File Formats" layout), not through
 * ag-psd: each layer record's name, rectangle, channel ids (-1 transparency, 0-2 RGB, -2 the user
 * layer mask) and its mask rectangle.
 */
function rawLayers(b: Buffer): Array<{ name: string; rect: number[]; channels: number[]; maskRect: number[] | null }> {
  expect(b.toString('latin1', 0, 4)).toBe('8BPS')
  expect(b.readUInt16BE(4)).toBe(1) // PSD, not PSB
  let o = 26
  o += 4 + b.readUInt32BE(o) // colour mode data
  o += 4 + b.readUInt32BE(o) // image resources
  o += 4 // layer and mask information length
  o += 4 // layer info length
  const count = Math.abs(b.readInt16BE(o))
  o += 2
  const layers = []
  for (let i = 0; i < count; i++) {
    const rect = [0, 4, 8, 12].map((d) => b.readInt32BE(o + d)) // top, left, bottom, right
    o += 16
    const n = b.readUInt16BE(o)
    o += 2
    const channels: number[] = []
    for (let c = 0; c < n; c++, o += 6) channels.push(b.readInt16BE(o))
    expect(b.toString('latin1', o, o + 4)).toBe('8BIM')
    o += 12 // signature, blend mode, opacity, clipping, flags, filler
    const extra = b.readUInt32BE(o)
    const end = o + 4 + extra
    o += 4
    const maskLength = b.readUInt32BE(o)
    const maskRect = maskLength >= 16 ? [0, 4, 8, 12].map((d) => b.readInt32BE(o + 4 + d)) : null
    o += 4 + maskLength
    o += 4 + b.readUInt32BE(o) // blending ranges
    const name = b.toString('latin1', o + 1, o + 1 + b[o]!)
    layers.push({ name, rect, channels, maskRect })
    o = end
  }
  return layers
}

const names = (psd: Psd) => (psd.children ?? []).map((l) => l.name)
const layer = (psd: Psd, name: string): Layer => psd.children!.find((l) => l.name === name)!
const pixel = (data: ArrayLike<number>, width: number, x: number, y: number) =>
  Array.from({ length: 4 }, (_, i) => data[(y * width + x) * 4 + i]!)

describe('PSD output', () => {
  const rect = { x: 40, y: 20, width: 40, height: 50 }
  let whole: ComposeResult // crop=none: the Subject layer covers the whole photo
  let cropped: ComposeResult

  beforeAll(async () => {
    whole = await composeRect(120, 100, rect, paramsOf('background=#FFFFFF;variations=clipping,background,compose,shadowTop,mask'), true)
    cropped = await composeRect(120, 100, rect, paramsOf('ecommerce-white;size=300x300;variations=compose,shadowTop,clipping'), true)
  })

  it('shadowTop: Background, Shadow, Subject (bottom to top) and the merged composite', async () => {
    const { psd } = await psdOf(whole, 'shadowTop')
    expect([psd.width, psd.height]).toEqual([120, 100])
    expect(names(psd)).toEqual(['Background', 'Shadow', 'Subject'])
    const flat = whole.variations.find((v) => v.variation === 'shadowTop')!.image
    expect(Buffer.from(psd.imageData!.data as Uint8ClampedArray).equals(flat.data)).toBe(true)
    const shadow = layer(psd, 'Shadow')
    expect(shadow.top! + shadow.imageData!.height).toBeGreaterThan(rect.y + rect.height) // under the base
    expect(shadow.imageData!.width).toBeLessThan(120)
  })

  it('Subject holds the original pixels, not cut out; the alpha is a real layer mask', async () => {
    const { psd } = await psdOf(whole, 'compose')
    expect(names(psd)).toEqual(['Background', 'Subject'])
    const subject = layer(psd, 'Subject')
    const img = subject.imageData!
    expect([subject.left, subject.top, img.width, img.height]).toEqual([0, 0, 120, 100])
    // Outside the subject the photo's own grey is still there, fully opaque: the mask hides it.
    expect(pixel(img.data, 120, 5, 5)).toEqual([...GREY])
    expect(pixel(img.data, 120, 60, 40)).toEqual([...RED])
    const mask = subject.mask!
    expect(mask.defaultColor).toBe(0)
    expect(mask.disabled ?? false).toBe(false)
    const m = mask.imageData!
    const mw = m.width
    const maskAt = (x: number, y: number) => m.data[((y - (mask.top ?? 0)) * mw + (x - (mask.left ?? 0))) * 4]!
    expect(maskAt(60, 40)).toBe(255)
    expect(maskAt(5, 5)).toBe(0)
    expect(maskAt(rect.x - 1, 40)).toBe(0)
    expect(maskAt(rect.x, 40)).toBe(255)
    const bg = layer(psd, 'Background')
    expect(pixel(bg.imageData!.data, 120, 5, 5)).toEqual([255, 255, 255, 255])
  })

  it('clipping: one masked Subject layer over transparency; the composite is transparent outside', async () => {
    const { psd } = await psdOf(whole, 'clipping')
    expect(names(psd)).toEqual(['Subject'])
    expect(layer(psd, 'Subject').mask?.imageData).toBeDefined()
    expect(pixel(psd.imageData!.data, 120, 5, 5)[3]).toBe(0)
    expect(pixel(psd.imageData!.data, 120, 60, 40)).toEqual([...RED])
  })

  it('background and mask: one layer each', async () => {
    expect(names((await psdOf(whole, 'background')).psd)).toEqual(['Background'])
    const mask = (await psdOf(whole, 'mask')).psd
    expect(names(mask)).toEqual(['Mask'])
    expect(pixel(mask.imageData!.data, 120, 60, 40)).toEqual([255, 255, 255, 255])
    expect(pixel(mask.imageData!.data, 120, 5, 5)).toEqual([0, 0, 0, 255])
  })

  it('placed (crop, size, margin): layers sit where the subject was placed; mask and pixels line up', async () => {
    const { psd } = await psdOf(cropped, 'shadowTop')
    expect([psd.width, psd.height]).toEqual([300, 300])
    expect(names(psd)).toEqual(['Background', 'Shadow', 'Subject'])
    const subject = layer(psd, 'Subject')
    // 40×50 scaled to fit 270×270 (5 % margins): 216×270, centred, standing on the bottom margin.
    expect([subject.left, subject.top, subject.imageData!.width, subject.imageData!.height]).toEqual([42, 15, 216, 270])
    expect([subject.mask!.left, subject.mask!.top, subject.mask!.imageData!.width]).toEqual([42, 15, 216])
    expect(names((await psdOf(cropped, 'clipping')).psd)).toEqual(['Subject'])
  })

  it('the file itself (read without ag-psd) has the named layers and a user mask channel on Subject', async () => {
    const shadowTop = rawLayers((await psdOf(whole, 'shadowTop')).bytes)
    expect(shadowTop.map((l) => l.name)).toEqual(['Background', 'Shadow', 'Subject'])
    const subject = shadowTop[2]!
    expect(subject.channels.sort((x, y) => x - y)).toEqual([-2, -1, 0, 1, 2])
    expect(subject.rect).toEqual([0, 0, 100, 120])
    expect(subject.maskRect).toEqual([0, 0, 100, 120])
    expect(shadowTop[0]!.channels).not.toContain(-2)
    const placed = rawLayers((await psdOf(cropped, 'compose')).bytes)
    expect(placed.map((l) => [l.name, l.rect])).toEqual([
      ['Background', [0, 0, 300, 300]],
      ['Subject', [15, 42, 285, 258]]
    ])
    expect(placed[1]!.maskRect).toEqual([15, 42, 285, 258])
  })

  it('ImageMagick identify lists the composite and every layer', async (ctx) => {
    if (!HAS_IDENTIFY) ctx.skip('ImageMagick `identify` is not installed here (CI installs it in .ci/run)')
    const dir = mkdtempSync(join(tmpdir(), 'clipdesk-psd-'))
    try {
      for (const [variation, layers] of [
        ['shadowTop', 3],
        ['compose', 2],
        ['clipping', 1]
      ] as const) {
        const file = join(dir, `${variation}.psd`)
        writeFileSync(file, (await psdOf(whole, variation)).bytes)
        const r = spawnSync('identify', [file], { encoding: 'utf8' })
        expect(r.status, r.stderr).toBe(0)
        const lines = r.stdout.trim().split('\n')
        expect(lines, r.stdout).toHaveLength(layers + 1) // [0] is the composite
        expect(lines[0]).toMatch(/PSD 120x100/)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
