/**
 * `clipdesk check` on images made in code to break one rule each (and one that breaks none):
 * each failing file is named with its reason, the passing one is not, the exit code is 1; a
 * user's rule file in the data folder is read; a bad one and a missing --for are usage mistakes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, startServe } from './helpers/cli'

/** A red ball (the product, which the model finds) whose box spans `fill` of a `size` square on `bg`. */
function productSvg(size: number, fill: number, bg: string, extra = ''): Buffer {
  const r = (size * fill) / 2
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">
  <defs><radialGradient id="ball" cx="0.35" cy="0.3" r="0.75"><stop offset="0" stop-color="#ff8a7a"/><stop offset="0.5" stop-color="#d81b0c"/><stop offset="1" stop-color="#5a0803"/></radialGradient></defs>
  <rect width="100%" height="100%" fill="${bg}"/>
  <circle cx="${size / 2}" cy="${size / 2}" r="${r}" fill="url(#ball)"/>${extra}
</svg>`)
}

let dir: string
let photos: string
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clipdesk-check-'))
  photos = join(dir, 'photos')
  mkdirSync(photos)
  const jpeg = (svg: Buffer) => sharp(svg).jpeg({ quality: 92 }).toBuffer()
  writeFileSync(join(photos, 'ready.jpg'), await jpeg(productSvg(1200, 0.88, '#ffffff')))
  writeFileSync(join(photos, 'grey.jpg'), await jpeg(productSvg(1200, 0.88, '#c8c8c8')))
  writeFileSync(join(photos, 'fill-60.jpg'), await jpeg(productSvg(1200, 0.6, '#ffffff')))
  writeFileSync(join(photos, 'small-800.jpg'), await jpeg(productSvg(800, 0.88, '#ffffff')))
  writeFileSync(
    join(photos, 'alpha.png'),
    await sharp(productSvg(1200, 0.88, 'none'))
      .png()
      .toBuffer()
  )
  const frame = '<rect x="6" y="6" width="1188" height="1188" fill="none" stroke="#202020" stroke-width="12"/>'
  writeFileSync(join(photos, 'border.jpg'), await jpeg(productSvg(1200, 0.88, '#ffffff', frame)))
  writeFileSync(join(photos, 'notes.txt'), 'not an image')
  writeFileSync(join(photos, 'broken.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('clipdesk check', () => {
  it('names each file that breaks a rule, with its reason, and exits 1', () => {
    const r = runCli(['check', photos, '--for', 'amazon', '--data-dir', join(dir, 'data')])
    const line = (name: string) => r.stdout.split('\n').find((l) => l.startsWith(`${name}: Not ready for Amazon: `)) ?? ''
    expect(r.code).toBe(1)
    expect(line('ready.jpg')).toBe('')
    expect(line('grey.jpg')).toContain('the background is not white')
    expect(line('fill-60.jpg')).toMatch(/the product fills 6\d % of the frame; Amazon asks about 85 %: run with --params amazon$/)
    expect(line('small-800.jpg')).toContain('it is 800×800 px; Amazon needs at least 1000 px on the longest side')
    expect(line('alpha.png')).toContain('it has transparent parts; Amazon wants a solid background')
    // The frame's stroke is the edge and a band inside it: the edges are not white, nor all of what is inside them.
    expect(line('border.jpg')).toContain("0 % of the frame's edges are pure white (RGB 255)")
    expect(line('broken.jpg')).toMatch(/^broken\.jpg: Not ready for Amazon: it cannot be read: /)
    expect(r.stdout.split('\n').filter((l) => l !== '')).toHaveLength(6)
    expect(r.stderr).toContain('6 of 7 files not ready for Amazon')
  })

  it('reads a rule set of the user from the data folder, and --json gives every verdict', () => {
    const data = join(dir, 'data')
    mkdirSync(join(data, 'rules'), { recursive: true })
    const agency = {
      name: 'agency',
      title: 'the agency',
      source: 'our style guide',
      rules: { fill: { min: 0.5, max: 0.7, source: 'style guide' }, size: { minLongest: 1000, source: 'style guide' } }
    }
    writeFileSync(join(data, 'rules', 'agency.json'), JSON.stringify(agency))
    const r = runCli(['check', join(photos, 'fill-60.jpg'), join(photos, 'ready.jpg'), '--for', 'agency', '--json', '--data-dir', data])
    expect(r.code).toBe(1)
    const body = JSON.parse(r.stdout)
    expect(body.files.map((f: any) => [f.file, f.passed])).toEqual([
      [join(photos, 'fill-60.jpg'), true],
      [join(photos, 'ready.jpg'), false]
    ])
    expect(body.files[1].checks[0].failures[0].reason).toMatch(/^the product fills 8\d % of the frame; the agency asks at most 70 %$/)
  })

  it('runs while a server holds the data folder: it reads the rules folder and takes no engine lock', async () => {
    const data = join(dir, 'served')
    mkdirSync(join(data, 'rules'), { recursive: true })
    writeFileSync(
      join(data, 'rules', 'shop.json'),
      JSON.stringify({ name: 'shop', title: 'the shop', source: 'us', rules: { formats: { allowed: ['png'], source: 'us' } } })
    )
    const serve = await startServe(data)
    try {
      // An unreadable file never loads the model: the answer is about the file, not the folder's lock.
      const r = runCli(['check', join(photos, 'broken.jpg'), '--for', 'shop', '--data-dir', data])
      expect(r.code, r.stderr).toBe(1)
      expect(r.stdout).toMatch(/broken\.jpg: Not ready for the shop: it cannot be read: /)
    } finally {
      serve.child.kill('SIGTERM')
      await serve.exited
    }
  })

  it('a missing --for, an unknown store and a broken rule file are usage mistakes (exit 2)', () => {
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, JSON.stringify({ name: 'bad', title: 'Bad', source: 'x', rules: { fill: { min: 2, source: 'x' } } }))
    const none = runCli(['check', photos])
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining('name the store with --for')])
    const unknown = runCli(['check', photos, '--for', 'amazn', '--data-dir', join(dir, 'data')])
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('no rule set named "amazn"')])
    const broken = runCli(['check', photos, '--for', bad])
    expect([broken.code, broken.stderr]).toEqual([2, expect.stringContaining('rules.fill.min')])
  })
})
