/**
 * The store presets (docs/store-ready.md) read from the written files of real jobs over the
 * HTTP API: `params=amazon` alone writes a JPEG in sRGB whose border is exactly white and whose
 * subject's box is 85–90 % of the frame, 2000 px where the photo allows it without enlarging the
 * subject past 2×, else the largest size that does, never under 1000 px; what cannot pass is
 * written and its status says "Not ready" with the reason (`checks`). The inputs carry their own
 * transparency and the jobs add `alpha=keep`, so the subject is known to the pixel and no model
 * runs. A user preset that had a store's name is renamed once, and said once.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { settled, until } from './helpers/batches'
import { runCli } from './helpers/cli'
import { blockPng, rgbaOf } from './helpers/cutout'
import { withDataFolderDb } from './helpers/data-folder'
import { settledJob, startTestServer, tempDir, type TestServer } from './helpers/engine'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

async function run(params: string, image: Buffer, fields: Record<string, string> = {}) {
  const { body, bytes } = await settledJob(server, { params, ...fields }, { bytes: image, name: 'product.png' })
  return { body, bytes, meta: await sharp(bytes).metadata(), main: await rgbaOf(bytes) }
}

/** The box of pixels that are not near-white: the product on the written file. */
function productBox(img: { data: Buffer; width: number; height: number }) {
  let [x0, y0, x1, y1] = [img.width, img.height, -1, -1]
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++) {
      const i = (y * img.width + x) * 4
      if (Math.min(img.data[i]!, img.data[i + 1]!, img.data[i + 2]!) < 200) {
        x0 = Math.min(x0, x)
        x1 = Math.max(x1, x)
        y0 = Math.min(y0, y)
        y1 = Math.max(y1, y)
      }
    }
  return { width: x1 - x0 + 1, height: y1 - y0 + 1 }
}

/** Every pixel of the outermost row and column, each channel: exactly 255. */
function borderIsWhite(img: { data: Buffer; width: number; height: number }): boolean {
  const { width: w, height: h, data } = img
  for (let y = 0; y < h; y++)
    for (const x of y === 0 || y === h - 1 ? Array.from({ length: w }, (_, i) => i) : [0, w - 1]) {
      const i = (y * w + x) * 4
      if (data[i] !== 255 || data[i + 1] !== 255 || data[i + 2] !== 255) return false
    }
  return true
}

describe('params=amazon', () => {
  it('a photo that allows it: 2000×2000 JPEG in sRGB, border exactly 255, product 85–90 % of the frame, Ready for Amazon', async () => {
    const { body, meta, main } = await run('amazon;alpha=keep', await blockPng(2400, 1800, { x: 600, y: 450, width: 1100, height: 800 }))
    expect([meta.format, meta.space, meta.width, meta.height]).toEqual(['jpeg', 'srgb', 2000, 2000])
    expect(body.final_url).toMatch(/\.jpg\?/)
    expect(borderIsWhite(main)).toBe(true)
    const box = productBox(main)
    const fill = Math.max(box.width, box.height) / 2000
    expect(fill).toBeGreaterThanOrEqual(0.85)
    expect(fill).toBeLessThanOrEqual(0.9)
    expect(body.checks).toEqual([{ store: 'amazon', title: 'Amazon', passed: true, failures: [] }])
  })

  it('a smaller photo: the largest square that enlarges the product at most 2×, not under 1000 px', async () => {
    const { body, meta, main } = await run('amazon;alpha=keep', await blockPng(800, 600, { x: 100, y: 150, width: 500, height: 300 }))
    expect(meta.format).toBe('jpeg')
    expect(meta.width).toBe(meta.height)
    expect(meta.width!).toBeGreaterThanOrEqual(1000)
    expect(meta.width!).toBeLessThan(2000)
    const box = productBox(main)
    expect(box.width / 500).toBeLessThanOrEqual(2)
    expect(box.width / meta.width!).toBeGreaterThanOrEqual(0.85)
    expect(borderIsWhite(main)).toBe(true)
    expect(body.warnings).toBeUndefined()
    expect(body.checks[0].passed).toBe(true)
  })

  it('a product too small for 1000 px at 2×: written, enlarged with a warning, and Not ready with the reason', async () => {
    const { body, meta } = await run('amazon;alpha=keep', await blockPng(300, 300, { x: 50, y: 75, width: 200, height: 150 }))
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 1000, 1000])
    expect(JSON.stringify(body.warnings)).toContain('enlarged 4.4×')
    expect(body.checks).toEqual([
      {
        store: 'amazon',
        title: 'Amazon',
        passed: false,
        failures: [
          {
            rule: 'enlargement',
            reason: 'the product had to be enlarged 4.4× (at most 2× for Amazon): the photo is too small',
            fix: 'use a larger original'
          }
        ]
      }
    ])
  })

  it('a product cut by the photo’s edge is Not ready for that reason; an explicit format wins and is checked', async () => {
    const cut = await run('amazon;alpha=keep', await blockPng(1600, 1200, { x: 300, y: 400, width: 1000, height: 800 }))
    expect(cut.body.checks[0].failures.map((f: any) => f.reason)).toEqual([
      "the product is cut by the photo's edge (bottom); Amazon wants the whole product"
    ])
    const webp = await run('amazon;alpha=keep', await blockPng(2400, 1800, { x: 600, y: 450, width: 1100, height: 800 }), {
      output_format: 'webp'
    })
    expect(webp.meta.format).toBe('webp')
    expect(webp.body.checks[0].failures.map((f: any) => f.reason)).toEqual(['the file is a WebP; Amazon takes JPEG, PNG, TIFF or GIF'])
  })

  it('google never enlarges: a small photo gives a smaller square', async () => {
    const { body, meta, main } = await run('google;alpha=keep', await blockPng(800, 600, { x: 100, y: 150, width: 500, height: 300 }))
    expect(meta.format).toBe('jpeg')
    expect(productBox(main).width).toBeLessThanOrEqual(500)
    expect(body.checks).toEqual([{ store: 'google', title: 'Google Shopping', passed: true, failures: [] }])
  })
})

describe('a user preset named like a store', () => {
  it('is renamed <name>-own once, said once, and keeps working', async () => {
    const dataDir = tempDir()
    const said: string[] = []
    await new Engine({ dataDir, log: (m) => said.push(m) }).stop()
    // A data folder of the version before: its user preset "amazon", and the renaming not yet applied.
    withDataFolderDb(dataDir, (db) => {
      db.exec(`DROP TABLE preset_renames; DELETE FROM migrations WHERE name = '017-store-preset-names'`)
      db.prepare('INSERT INTO presets (name, params, source, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
        'amazon',
        JSON.stringify({ background: { kind: 'color', rgba: [250, 240, 230, 255] } }),
        'background=#FAF0E6',
        null,
        1,
        1
      )
    })
    const first = new Engine({ dataDir, log: (m) => said.push(m) })
    expect(first.preset('amazon-own')?.values.background).toEqual({ kind: 'color', rgba: [250, 240, 230, 255] })
    expect(first.preset('amazon')?.builtin).toBe(true)
    await first.stop()
    await new Engine({ dataDir, log: (m) => said.push(m) }).stop()
    expect(said.filter((m) => m.includes('amazon'))).toEqual([
      'your preset "amazon" is now "amazon-own": "amazon" is the built-in store preset (docs/store-ready.md)'
    ])
  })
})

describe('clipdesk process with a store preset', () => {
  it('writes JPEG, says which files are ready, lists the others in the report; --check adds a set of the user', async () => {
    const dir = tempDir()
    const photos = join(dir, 'photos')
    mkdirSync(photos)
    writeFileSync(join(photos, 'big.png'), await blockPng(2400, 1800, { x: 600, y: 450, width: 1100, height: 800 }))
    writeFileSync(join(photos, 'cut.png'), await blockPng(1600, 1200, { x: 300, y: 400, width: 1000, height: 800 }))
    const strict = join(dir, 'strict.json')
    writeFileSync(
      strict,
      JSON.stringify({
        name: 'strict',
        title: 'the agency',
        source: 'style guide',
        rules: { size: { minLongest: 3000, source: 'style guide' } }
      })
    )
    const out = join(dir, 'out')
    const r = runCli(['process', photos, '--out', out, '--params', 'amazon;alpha=keep', '--check', strict, '--data-dir', join(dir, 'data')])
    expect(r.code, r.stderr).toBe(0)
    expect(
      readdirSync(out)
        .filter((f) => f.endsWith('.jpg'))
        .sort()
    ).toEqual(['big.jpg', 'cut.jpg'])
    expect(r.stdout).toContain('1 of 2 files ready for Amazon')
    expect(r.stdout).toContain(
      "cut.jpg: Not ready for Amazon: the product is cut by the photo's edge (bottom); Amazon wants the whole product"
    )
    expect(r.stdout).toContain('0 of 2 files ready for the agency')
    const report = JSON.parse(readFileSync(join(out, 'clipdesk-report.json'), 'utf8'))
    expect(report.counts.not_ready).toBe(2)
    expect(report.checks.filter((c: any) => c.store === 'Amazon').map((c: any) => [c.output, c.passed])).toEqual([
      ['big.jpg', true],
      ['cut.jpg', false]
    ])
    expect(readFileSync(join(out, 'clipdesk-report.txt'), 'utf8')).toContain('1 of 2 files ready for Amazon')

    const webp = runCli([
      'process',
      join(photos, 'big.png'),
      '--out',
      join(dir, 'webp'),
      '--params',
      'amazon;alpha=keep',
      '--format',
      'webp',
      '--data-dir',
      join(dir, 'data')
    ])
    expect(webp.stderr).toContain("warning: --format webp wins over the set's format=jpg: the files will not pass Amazon's rules")
    expect(webp.stdout).toContain('0 of 1 file ready for Amazon')
    rmSync(dir, { recursive: true, force: true })
  })
})

describe('a batch with a store preset', () => {
  it('keeps each file’s check on its item: Ready for Amazon, or Not ready with the reason', async () => {
    const root = tempDir()
    const engine = new Engine({ dataDir: join(root, 'data') })
    engine.start()
    const service = new BatchService(engine)
    service.start()
    try {
      const batch = await service.create({
        request: { mode: 'params', output_format: 'jpg', params: 'amazon;alpha=keep' },
        destination: join(root, 'out')
      })
      await service.add(batch.id, [
        { bytes: await blockPng(2400, 1800, { x: 600, y: 450, width: 1100, height: 800 }), rel_path: 'big.png' },
        { bytes: await blockPng(1600, 1200, { x: 300, y: 400, width: 1000, height: 800 }), rel_path: 'cut.png' }
      ])
      await until(service, batch.id, settled)
      const items = service.detail(batch.id, () => '').items
      expect(items.map((i) => [i.name, i.checks?.map((c) => [c.title, c.passed])])).toEqual([
        ['big.png', [['Amazon', true]]],
        ['cut.png', [['Amazon', false]]]
      ])
      expect(items[1]!.checks![0]!.failures[0]!.rule).toBe('wholeSubject')
    } finally {
      await service.stop()
      await engine.stop()
      rmSync(root, { recursive: true, force: true })
    }
  })
})
