/**
 * The compose step with masks drawn in code (no model): every variation, and the subject's
 * bounding box on the output canvas in pixels for crop / size / margin / position.
 */
import { describe, expect, it } from 'vitest'
import { JobFailure } from '../../errors'
import { composeVariations, type ComposeResult } from './compose'
import { drawOver } from './draw-over'
import { composeRect, GREY, paramsOf, photo, RED, rectMask } from '../../../../../test/fixtures/compose-fixtures'
import { alphaBounds, cutSides, type Rect } from './placement'

function variation(result: ComposeResult, name: string) {
  const v = result.variations.find((x) => x.variation === name)
  if (!v) throw new Error(`no ${name} among ${result.variations.map((x) => x.variation).join(', ')}`)
  return v
}

/** Canvas size and the subject's box in the clipping variation. */
async function placed(width: number, height: number, rect: Rect, text: string) {
  const result = await composeRect(width, height, rect, paramsOf(`variations=clipping;${text}`))
  const { image } = variation(result, 'clipping')
  return {
    canvas: [image.width, image.height],
    box: alphaBounds(image.data, image.width, image.height, { stride: 4, offset: 3 }),
    warnings: result.warnings
  }
}

const px = (img: { data: Buffer; width: number }, x: number, y: number) => [
  ...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 4)
]

describe('placement: the subject box on the canvas, in pixels', () => {
  const rect = { x: 60, y: 30, width: 100, height: 200 } // tall subject in a 300×260 photo

  it('cutSides: a side counts as cut when the subject covers its edge, not for a stray pixel', () => {
    expect(cutSides(rectMask(300, 260, rect), 300, 260)).toEqual({ top: false, right: false, bottom: false, left: false })
    expect(cutSides(rectMask(300, 260, { x: 60, y: 30, width: 100, height: 230 }), 300, 260)).toEqual({
      top: false,
      right: false,
      bottom: true,
      left: false
    })
    expect(cutSides(rectMask(300, 260, { x: 0, y: 0, width: 300, height: 260 }), 300, 260)).toEqual({
      top: true,
      right: true,
      bottom: true,
      left: true
    })
    const stray = rectMask(300, 260, rect)
    stray[259 * 300 + 150] = 255 // one pixel of the mask on the bottom edge
    expect(cutSides(stray, 300, 260).bottom).toBe(false)
  })

  it('a cut side has no margin and holds the subject on the canvas edge, whatever the position', async () => {
    const torso = { x: 60, y: 30, width: 100, height: 230 } // cut by the bottom edge
    expect(await placed(300, 260, torso, 'crop=subject;margin=10px')).toMatchObject({
      canvas: [120, 240],
      box: { x: 10, y: 10, width: 100, height: 230 }
    })
    // position=top asks for the top margin; the cut bottom wins on that axis: 360 px of room
    // under the 10 % top margin, scale 360 / 230.
    expect(await placed(300, 260, torso, 'crop=subject;size=400x400;margin=10%;position=top')).toMatchObject({
      box: { x: 122, y: 40, width: 157, height: 360 }
    })
    const left = { x: 0, y: 30, width: 100, height: 200 } // cut by the left edge
    expect(await placed(300, 260, left, 'crop=subject;size=400x400;margin=5%;position=right')).toMatchObject({ box: { x: 0 } })
  })

  it('crop=none, size=original, margin=0 (clipping defaults): the input canvas, the subject where it was', async () => {
    expect(await placed(300, 260, rect, 'crop=none')).toMatchObject({ canvas: [300, 260], box: rect })
  })

  it('crop=subject, size=original: the canvas is the subject box plus margins', async () => {
    expect(await placed(300, 260, rect, 'crop=subject')).toMatchObject({ canvas: [100, 200], box: { x: 0, y: 0, width: 100, height: 200 } })
    expect(await placed(300, 260, rect, 'crop=subject;margin=10px')).toMatchObject({
      canvas: [120, 220],
      box: { x: 10, y: 10, width: 100, height: 200 }
    })
    // 10 % of the canvas on each side: 100 / 0.8 × 200 / 0.8.
    expect(await placed(300, 260, rect, 'crop=subject;margin=10%')).toMatchObject({
      canvas: [125, 250],
      box: { x: 13, y: 25, width: 100, height: 200 }
    })
  })

  it('crop=subject, size=<W>x<H>: scaled to fit inside the margins, centred or standing on the bottom margin', async () => {
    // Scale 2 (height-bound): 200×400 centred horizontally.
    expect(await placed(300, 260, rect, 'crop=subject;size=400x400')).toMatchObject({
      canvas: [400, 400],
      box: { x: 100, y: 0, width: 200, height: 400 }
    })
    // 5 % of 400 = 20 px margins: 360 px of room, scale 1.8.
    expect(await placed(300, 260, rect, 'crop=subject;size=400x400;margin=5%')).toMatchObject({
      box: { x: 110, y: 20, width: 180, height: 360 }
    })
    const wide = { x: 20, y: 100, width: 200, height: 100 }
    expect(await placed(300, 260, wide, 'crop=subject;size=400x400;margin=5%;position=center')).toMatchObject({
      box: { x: 20, y: 110, width: 360, height: 180 }
    })
    expect(await placed(300, 260, wide, 'crop=subject;size=400x400;margin=5%;position=bottom')).toMatchObject({
      box: { x: 20, y: 200, width: 360, height: 180 }
    })
    expect(await placed(300, 260, wide, 'crop=subject;size=400x300;margin=25px;position=bottom')).toMatchObject({
      canvas: [400, 300],
      box: { x: 25, y: 100, width: 350, height: 175 }
    })
    // Downscale by 2.
    expect(await placed(300, 260, rect, 'crop=subject;size=50x100')).toMatchObject({
      canvas: [50, 100],
      box: { x: 0, y: 0, width: 50, height: 100 }
    })
  })

  it('crop=subject, size=<max>: the long edge is max, the other follows the subject plus margins', async () => {
    const wide = { x: 20, y: 100, width: 200, height: 100 }
    expect(await placed(300, 260, wide, 'crop=subject;size=500')).toMatchObject({
      canvas: [500, 250],
      box: { x: 0, y: 0, width: 500, height: 250 }
    })
    expect(await placed(300, 260, wide, 'crop=subject;size=500;margin=10px')).toMatchObject({
      canvas: [500, 260],
      box: { x: 10, y: 10, width: 480, height: 240 }
    })
    expect(await placed(300, 260, rect, 'crop=subject;size=400;margin=10%')).toMatchObject({
      canvas: [200, 400],
      box: { x: 20, y: 40, width: 160, height: 320 }
    })
  })

  it('crop=none with a size fits the whole photo; the subject moves with it (±1 px at non-integer scales)', async () => {
    const r = await placed(300, 260, rect, 'crop=none;size=600x600;position=bottom')
    // The photo scales by 2 to 600×520, standing on the bottom edge: y offset 80.
    expect(r.canvas).toEqual([600, 600])
    const box = r.box!
    for (const [got, want] of [
      [box.x, 120],
      [box.y, 80 + 60],
      [box.width, 200],
      [box.height, 400]
    ] as const) {
      expect(Math.abs(got - want), `${JSON.stringify(box)}`).toBeLessThanOrEqual(1)
    }
  })

  it('crop=subject with no subject keeps the whole photo and says so', async () => {
    const result = await composeRect(80, 60, null, paramsOf('crop=subject;size=160x120;variations=clipping,compose'))
    expect(variation(result, 'clipping').image.width).toBe(160)
    expect(result.warnings.compose).toEqual(['no subject was found: crop=subject kept the whole image'])
  })

  it('refuses a canvas over the limit (job fails image_too_large)', async () => {
    const err = await composeRect(300, 300, { x: 10, y: 10, width: 280, height: 280 }, paramsOf('margin=4990px;variations=clipping')).catch(
      (e: unknown) => e
    )
    expect(err).toBeInstanceOf(JobFailure)
    expect((err as JobFailure).reason).toBe('image_too_large')
  })
})

describe('variations', () => {
  const rect = { x: 20, y: 10, width: 40, height: 40 }

  it('makes them in the order asked, each at the canvas size', async () => {
    const result = await composeRect(80, 60, rect, paramsOf('variations=mask,compose,clipping,background,shadowTop;background=#0000FF'))
    expect(result.variations.map((v) => v.variation)).toEqual(['mask', 'compose', 'clipping', 'background', 'shadowTop'])
    for (const v of result.variations) expect([v.image.width, v.image.height, v.image.data.length]).toEqual([80, 60, 80 * 60 * 4])
    expect(result.ignored).toEqual([])
    expect(result.warnings).toEqual({})
  })

  it('clipping: the subject on transparency, colours from the foreground', async () => {
    const image = photo(80, 60, rect)
    const foreground = Buffer.from(image.data)
    foreground.set([1, 2, 3, 255], ((rect.y + 5) * 80 + rect.x + 5) * 4) // an "estimated" colour
    const result = await composeVariations(image, { alpha: rectMask(80, 60, rect), foreground }, paramsOf('variations=clipping'))
    const clip = variation(result, 'clipping').image
    expect(px(clip, rect.x + 5, rect.y + 5)).toEqual([1, 2, 3, 255])
    expect(px(clip, rect.x + 6, rect.y + 6)).toEqual([...RED])
    expect(px(clip, 2, 2)[3]).toBe(0)
  })

  it('background: transparent, a colour (with alpha), or the photo blurred', async () => {
    const transparent = variation(
      await composeRect(80, 60, rect, paramsOf('background=transparent;variations=background')),
      'background'
    ).image
    expect(transparent.data.every((b) => b === 0)).toBe(true)
    const colour = variation(await composeRect(80, 60, rect, paramsOf('background=#11223380;variations=background')), 'background').image
    expect(px(colour, 0, 0)).toEqual([0x11, 0x22, 0x33, 0x80])
    expect(px(colour, 79, 59)).toEqual([0x11, 0x22, 0x33, 0x80])
    const blurred = variation(await composeRect(80, 60, rect, paramsOf('background=blur:4;variations=background')), 'background').image
    // Far from the subject: the photo's grey; at the subject's edge: a mix of red and grey.
    expect(px(blurred, 78, 58)).toEqual([...GREY])
    const edge = px(blurred, rect.x, rect.y + 20)
    expect(edge[0]).toBeGreaterThan(GREY[0] + 10)
    expect(edge[0]).toBeLessThan(RED[0] - 10)
  })

  it('blur follows the placement: the photo is scaled and shifted with the subject, and mirrored where it ends', async () => {
    const params = paramsOf('background=blur:2;crop=subject;size=200x100;variations=background,compose')
    const result = await composeRect(80, 60, rect, params)
    const bg = variation(result, 'background').image
    expect([bg.width, bg.height]).toEqual([200, 100])
    // Subject 40×40 → 100×100 at x = 50: red under it, grey on both sides.
    expect(px(bg, 100, 50)).toEqual([...RED])
    expect(px(bg, 5, 50)).toEqual([...GREY])
    expect(px(bg, 195, 50)).toEqual([...GREY])
    expect(bg.data.every((b, i) => i % 4 !== 3 || b === 255)).toBe(true)
  })

  it('compose: the subject over the background; the edge blends', async () => {
    const image = photo(80, 60, rect)
    const alpha = rectMask(80, 60, rect)
    alpha[(rect.y + 20) * 80 + rect.x] = 128 // a soft edge pixel
    const result = await composeVariations(image, { alpha, foreground: image.data }, paramsOf('variations=compose;background=#FFFFFF'))
    const compose = variation(result, 'compose').image
    expect(px(compose, 0, 0)).toEqual([255, 255, 255, 255])
    expect(px(compose, rect.x + 20, rect.y + 20)).toEqual([...RED])
    expect(px(compose, rect.x, rect.y + 20)).toEqual([227, 142, 147, 255]) // 128/255 of red over white
  })

  it('mask: the alpha as opaque grey, placed like the subject', async () => {
    const result = await composeRect(80, 60, rect, paramsOf('variations=mask,clipping;crop=subject;margin=10px'))
    const mask = variation(result, 'mask')
    expect(mask.greyscale).toBe(true)
    expect([mask.image.width, mask.image.height]).toEqual([60, 60])
    expect(px(mask.image, 0, 0)).toEqual([0, 0, 0, 255])
    expect(px(mask.image, 30, 30)).toEqual([255, 255, 255, 255])
    expect(alphaBounds(mask.image.data, 60, 60, { stride: 4, offset: 0 })).toEqual({ x: 10, y: 10, width: 40, height: 40 })
  })

  it('background mode and every built-in preset compose without warnings for a standing subject', async () => {
    for (const text of ['', 'ecommerce-white', 'transparent-square', 'marketplace-1600', 'social-blur']) {
      const params = text ? paramsOf(text) : paramsOf('', 'background')
      const result = await composeRect(120, 90, { x: 40, y: 20, width: 40, height: 60 }, params)
      expect(result.variations.map((v) => v.variation)).toEqual(params.variations)
      expect(result.ignored).toEqual([])
    }
  })
})

describe('drawOver', () => {
  it('is "source over" with straight alpha, cut to the destination', () => {
    const dst = Buffer.from([0, 0, 255, 128, 10, 10, 10, 255])
    drawOver(dst, 2, 1, Buffer.from([255, 0, 0, 128, 9, 9, 9, 9, 1, 1, 1, 255]), 3, 1, 0, 0)
    // red 50 % over blue 50 %: alpha 0.75, colour 2/3 red + 1/3 blue.
    expect([...dst.subarray(0, 4)]).toEqual([170, 0, 85, 192])
    expect(dst[7]).toBe(255)
    expect(dst[4]).toBe(10)
  })
})
