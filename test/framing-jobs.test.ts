/**
 * Framing (docs/params.md "Framing"), read from the written files of real jobs over the HTTP
 * API: margins per side, alignment per axis, a side the photo cuts kept on the canvas edge with
 * no shadow under it, and enlargement either said in `warnings` or not done (`upscale`).
 * The inputs carry their own transparency and the jobs use `alpha=keep`, so the subject's box
 * is known to the pixel and no model runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { blockPng, redBox, rgbaOf } from './helpers/cutout'
import { settledJob, startTestServer, type TestServer } from './helpers/engine'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

async function run(params: string, image: Buffer, fields: Record<string, string> = {}) {
  const { body, bytes } = await settledJob(server, { params, ...fields }, { bytes: image, name: 'block.png' })
  expect(body.status).toBe('done')
  return { body, main: await rgbaOf(bytes) }
}

/** Within one pixel (a resized hard edge may land on either side of it). */
const near = (actual: number, expected: number): void =>
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(1)

describe('margin per side and position per axis', () => {
  // A 400×400 block well inside its photo; 10 % top, 5 % right, 20 % bottom, 15 % left of a
  // 1000×1000 canvas leave 800×700: the block is scaled 1.75× to 700×700.
  const margins = 'background=white;shadow=none;crop=subject;size=1000x1000;margin=10%,5%,20%,15%;alpha=keep'

  it('left,top: the block starts at the left (150 px) and top (100 px) margins', async () => {
    const { body, main } = await run(`${margins};position=left,top`, await blockPng(1200, 800, { x: 300, y: 200, width: 400, height: 400 }))
    expect([main.width, main.height]).toEqual([1000, 1000])
    const box = redBox(main)!
    near(box.x, 150)
    near(box.y, 100)
    near(box.width, 700)
    near(box.height, 700)
    expect(body).not.toHaveProperty('warnings') // 1.75× is not a blow-up
  })

  it('right,bottom: the block ends at the right (50 px) and bottom (200 px) margins', async () => {
    const { main } = await run(`${margins};position=right,bottom`, await blockPng(1200, 800, { x: 300, y: 200, width: 400, height: 400 }))
    const box = redBox(main)!
    near(box.x + box.width, 950)
    near(box.y + box.height, 800)
    expect(main.at(100, 500)).toEqual([255, 255, 255, 255]) // the left margin is background
  })
})

describe('a side the photo cuts stays on the canvas edge', () => {
  it('ecommerce-white: a block cut by the bottom edge stands on the canvas bottom, no margin and no shadow under it', async () => {
    // 200×250, cut at the bottom: the 5 % margins hold on the top, left and right only, so the
    // block is scaled 7.6× (1900 px of height) to 1520×1900 and ends on the canvas's last row.
    const { body, main } = await run('ecommerce-white;alpha=keep', await blockPng(600, 400, { x: 200, y: 150, width: 200, height: 250 }))
    expect([main.width, main.height]).toEqual([2000, 2000])
    const box = redBox(main)!
    near(box.y, 100)
    expect(box.y + box.height).toBe(2000)
    near(box.x + box.width / 2, 1000)
    // No shadow under a cut: the shadowed version is not made, said why, and the main file is
    // compose; beside the block on the bottom row the canvas is plain white.
    expect(body.ignored_variations).toEqual(['shadowTop'])
    expect(body.warnings.shadowTop).toEqual([expect.stringMatching(/^not made: the photo's bottom edge cuts the subject/)])
    expect(new URL(body.final_url).pathname).toMatch(/\/compose\.png$/)
    for (const x of [box.x - 5, box.x - 60, box.x + box.width + 5]) expect(main.at(x, 1999)).toEqual([255, 255, 255, 255])
    // 7.6× is a blow-up: said with the main file.
    expect(body.warnings.compose).toEqual([
      expect.stringMatching(/^enlarged 7\.6×: the subject \(200×250 px\) is small for a 2000×2000 canvas/)
    ])
  })

  it('the same block not cut gets its bottom margin and its shadow', async () => {
    const { body, main } = await run('ecommerce-white;alpha=keep', await blockPng(600, 400, { x: 200, y: 100, width: 200, height: 250 }))
    const box = redBox(main)!
    near(box.y + box.height, 1900)
    expect(new URL(body.final_url).pathname).toMatch(/\/shadowTop\.png$/)
    expect(main.at(1000, box.y + box.height + 3)[0]).toBeLessThan(250) // the shadow under the block
  })
})

describe('enlargement: said in warnings (upscale=allow, the default) or not done (upscale=never)', () => {
  const small = (): Promise<Buffer> => blockPng(300, 200, { x: 100, y: 50, width: 100, height: 100 })
  const set = 'background=white;shadow=none;crop=subject;alpha=keep'

  it('allow: a 100 px block fills a 1000×1000 canvas, and the warning says 10×', async () => {
    const { body, main } = await run(`${set};size=1000x1000`, await small())
    const box = redBox(main)!
    near(box.width, 1000)
    expect(body.warnings).toEqual({
      compose: [
        expect.stringMatching(
          /^enlarged 10\.0×: the subject \(100×100 px\) is small for a 1000×1000 canvas, so it looks soft; upscale=never keeps its own size$/
        )
      ]
    })
  })

  it('never: the block keeps its own 100 px, centred on the 1000×1000 canvas asked for, without a warning', async () => {
    const { body, main } = await run(`${set};size=1000x1000;upscale=never`, await small())
    expect([main.width, main.height]).toEqual([1000, 1000])
    expect(redBox(main)).toEqual({ x: 450, y: 450, width: 100, height: 100 })
    expect(body).not.toHaveProperty('warnings')
  })

  it('never with a long edge (size=<max>): the canvas shrinks to the block itself', async () => {
    const { main } = await run(`${set};size=1000;upscale=never`, await small())
    expect([main.width, main.height]).toEqual([100, 100])
    expect(redBox(main)).toEqual({ x: 0, y: 0, width: 100, height: 100 })
  })
})
