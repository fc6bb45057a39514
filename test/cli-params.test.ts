/**
 * `clipdesk process --params`: a set is done as it says (docs/params.md "Mode and parameter
 * set"). A preset named alone runs as `--mode params`; a shadow asked for is in the main file;
 * `--mode clipping` with a key it cannot apply stops before any photo is read.
 * One job runs the real model (the preset alone, as a new user types it); the others keep the
 * input's own transparency (`alpha=keep`).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from './helpers/cli'
import { blockPng, redBox, rgbaOf } from './helpers/cutout'
import { tempDir } from './helpers/engine'
import { scenePng } from './helpers/fixtures'

function shoot(name: string, bytes: Buffer): { input: string; root: string } {
  const root = tempDir()
  const input = join(root, 'shoot')
  mkdirSync(input)
  writeFileSync(join(input, name), bytes)
  return { input, root }
}

describe('clipdesk process --params', () => {
  it('--params ecommerce-white alone: a white 2000×2000 image with a shadow under the subject', async () => {
    const { input, root } = shoot('ball.png', await scenePng())
    const out = join(root, 'out')
    const r = runCli(['process', input, '--out', out, '--params', 'ecommerce-white', '--data-dir', join(root, 'data')])
    expect(r.code, r.stderr).toBe(0)
    const img = await rgbaOf(join(out, 'ball.png'))
    expect([img.width, img.height]).toEqual([2000, 2000])
    // White and opaque where there is no subject: not a transparent cut-out.
    for (const [x, y] of [
      [0, 0],
      [1999, 0],
      [0, 1999],
      [1999, 1999],
      [50, 1000]
    ] as const)
      expect(img.at(x, y)).toEqual([255, 255, 255, 255])
    // The ball stands on the bottom margin (5 %: row 1900); under it the shadow darkens the white.
    const box = redBox(img)!
    expect(Math.abs(box.y + box.height - 1900)).toBeLessThanOrEqual(3)
    const under = img.at(Math.round(box.x + box.width / 2), box.y + box.height + 4)
    expect(under[0]).toBeLessThan(245)
    expect(under[0]).toBe(under[2]) // grey: a shadow, not the subject's red
  })

  it('a shadow asked for is in the main file: shadow=top differs from shadow=none under the subject, with or without --mode params', async () => {
    const { input, root } = shoot('block.png', await blockPng(400, 300, { x: 100, y: 50, width: 200, height: 150 }))
    const main = async (args: string[], name: string) => {
      const r = runCli(['process', input, '--out', join(root, name), ...args, '--data-dir', join(root, 'data')])
      expect(r.code, r.stderr).toBe(0)
      return rgbaOf(join(root, name, 'block.png'))
    }
    const shadow = await main(['--mode', 'params', '--params', 'background=white;shadow=top;alpha=keep'], 'top')
    const none = await main(['--mode', 'params', '--params', 'background=white;shadow=none;alpha=keep'], 'none')
    const alone = await main(['--params', 'background=white;shadow=top;alpha=keep'], 'alone')
    // Just under the block's base (row 200), in its middle.
    expect(none.at(200, 203)).toEqual([255, 255, 255, 255])
    expect(shadow.at(200, 203)[0]).toBeLessThan(245)
    expect(alone.data.equals(shadow.data)).toBe(true)
  })

  it('--mode clipping with a preset it cannot apply: one line naming the keys and the mode, exit 2, nothing written', async () => {
    const { input, root } = shoot('block.png', await blockPng(40, 30, { x: 10, y: 5, width: 20, height: 15 }))
    const out = join(root, 'out')
    const r = runCli([
      'process',
      input,
      '--out',
      out,
      '--mode',
      'clipping',
      '--params',
      'ecommerce-white',
      '--data-dir',
      join(root, 'data')
    ])
    expect(r.code).toBe(2)
    // One short line: each key the mode cannot apply named once, where it came from, the way out once.
    expect(r.stderr.trim()).toBe(
      'clipdesk: --params with --mode clipping: background, shadow and primary (shadowTop) from the preset "ecommerce-white" do not apply to --mode clipping (the subject on transparency, no background or shadow); leave --mode out or use --mode params'
    )
    expect(r.stderr.trim().length).toBeLessThan(300)
    expect(existsSync(out)).toBe(false)
  })
})
