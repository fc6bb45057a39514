/**
 * Every result can be seen in the app: a batch that writes PSD or TIFF files gets its
 * thumbnails and its before/after images like a PNG batch, served over the app bridge's signed
 * addresses (real engine and model, real sockets, real sharp). A PSD is shown by its composite,
 * read in the decode sandbox like any input.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { BatchService } from '../src/main/batches/service'
import { displayedResult } from '../src/main/batches/previews'
import { Engine } from '../src/main/engine/engine'
import { signedPreviewAddress } from '../src/main/http/app-bridge'
import type { HttpListener } from '../src/main/http/server'
import { settled, until } from './helpers/batches'
import { tempDir } from './helpers/engine'
import { startAppServer } from './helpers/app-server'
import { scenePng } from './helpers/fixtures'

let root: string
let engine: Engine
let batches: BatchService
let http: HttpListener
let photo: string

beforeAll(async () => {
  root = tempDir('clipdesk-previews-')
  engine = new Engine({ dataDir: join(root, 'data') })
  engine.start()
  batches = new BatchService(engine)
  batches.start()
  ;({ http } = await startAppServer(root, engine, batches, { rendererDir: join(root, 'renderer') }))
  mkdirSync(join(root, 'in'), { recursive: true })
  photo = join(root, 'in', 'ball.png')
  writeFileSync(photo, await scenePng())
})

afterAll(async () => {
  await http.close()
  await batches.stop()
  await engine.stop()
  rmSync(root, { recursive: true, force: true })
})

it('shows a PSD result by its composite, and prefers a raster when an item wrote both', () => {
  expect(displayedResult(['/o/a.psd'])).toBe('/o/a.psd')
  expect(displayedResult(['/o/a.psd', '/o/a.mask.png'])).toBe('/o/a.mask.png')
  expect(displayedResult(['/o/a.txt'])).toBeNull()
})

it.each(['psd', 'tiff'] as const)('a %s batch has thumbnails and a before/after that decode', async (format) => {
  const batch = await batches.create({
    request: { mode: 'clipping', output_format: format, params: null },
    destination: join(root, `out-${format}`)
  })
  await batches.add(batch.id, [{ path: photo }])
  const done = await until(batches, batch.id, settled)
  expect(done.counts).toMatchObject({ total: 1, done: 1, failed: 0 })
  const item = batches.detail(batch.id, signedPreviewAddress(engine)).items[0]!
  expect(item.outputs[0]).toMatch(new RegExp(`\\.${format}$`))
  expect(item.thumb_url).toContain('/thumb-after')
  for (const url of [item.thumb_url, item.before_url, item.after_url!] as string[]) {
    const res = await fetch(`${http.url}${url}`)
    expect(res.status, url).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/webp')
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata()
    expect(meta.format).toBe('webp')
    expect(meta.width).toBeGreaterThan(0)
  }
  // The after image is the cut-out (transparent around the subject), not the original.
  const after = await fetch(`${http.url}${item.after_url!}`).then(async (r) =>
    sharp(Buffer.from(await r.arrayBuffer()))
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true })
  )
  expect(after.data[3]).toBe(0) // the top-left corner is background: cut away
})
