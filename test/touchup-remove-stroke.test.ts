/**
 * A Remove stroke of the touch-up editor leaves nothing where it was painted: the brush as the
 * editor paints it (a chain of discs, a hard core and a fading rim, `renderer/src/lib/brush.ts`)
 * across the ball, saved through the touch-up path, gives alpha exactly 0 wherever the stroke is
 * at least three quarters strong (hint ≤ 32), its rim only takes alpha away in proportion (no
 * faint wisps kept at full strength), and outside the stroke's band the file is as before.
 * Real engine, model, sandbox and sharp; the file's pixels as written.
 */
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createAppApi, type AppHost } from '../src/main/app-api/app-api'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { hintBand } from '../src/main/engine/pipeline/guide/hint'
import { address, settled, until } from './helpers/batches'
import { tempDir } from './helpers/engine'
import { SCENE, scenePng } from './helpers/fixtures'

const { width, height } = SCENE
/** Hint greys of a remove stroke at least three quarters strong (mid grey 128 × ¼), and of its fading rim beyond. */
const STRONG = 32
const RIM = 96

/**
 * A Remove stroke as the editor paints it into the hint (`paintStrokes`): discs every quarter
 * radius along the drag, each black fully within `hardness` of its radius and fading to nothing
 * at its edge, laid over mid grey one after the other.
 */
function removeStroke(from: [number, number], to: [number, number], size: number, hardness: number): Buffer {
  const grey = new Float64Array(width * height).fill(128)
  const r = size / 2
  const steps = Math.floor(Math.hypot(to[0] - from[0], to[1] - from[1]) / Math.max(1, r / 4))
  for (let k = 0; k <= steps; k++) {
    const cx = from[0] + ((to[0] - from[0]) * k) / steps
    const cy = from[1] + ((to[1] - from[1]) * k) / steps
    for (let y = Math.max(0, Math.floor(cy - r)); y < Math.min(height, Math.ceil(cy + r)); y++)
      for (let x = Math.max(0, Math.floor(cx - r)); x < Math.min(width, Math.ceil(cx + r)); x++) {
        const d = Math.hypot(x + 0.5 - cx, y + 0.5 - cy)
        const a = d <= hardness * r ? 1 : d >= r ? 0 : 1 - (d - hardness * r) / (r - hardness * r)
        grey[y * width + x] = grey[y * width + x]! * (1 - a)
      }
  }
  return Buffer.from(Array.from(grey, (v) => Math.round(v)))
}

const alphaOf = (file: string): Promise<Buffer> => sharp(readFileSync(file)).ensureAlpha().extractChannel(3).raw().toBuffer()

let root: string
let engine: Engine
let service: BatchService
beforeAll(() => {
  root = tempDir('clipdesk-remove-stroke-')
  engine = new Engine({ dataDir: join(root, 'data') })
  engine.start()
  service = new BatchService(engine)
  service.start()
})
afterAll(async () => {
  await service.stop()
  await engine.stop()
  rmSync(root, { recursive: true, force: true })
})

it('a soft Remove stroke across the ball: 0 wherever it is painted at least three quarters strong, its rim taken down, the rest as before', async () => {
  const api = createAppApi({ engine, batches: service, host: {} as AppHost, address })
  const out = join(root, 'out')
  const batch = await service.create({ request: { mode: 'clipping', output_format: 'png', params: null }, destination: out })
  await service.add(batch.id, [{ bytes: await scenePng(), rel_path: 'ball.png' }])
  await until(service, batch.id, settled)
  const item = service.detail(batch.id, address).items[0]!
  const file = join(out, 'ball.png')
  const before = await alphaOf(file)

  // The editor's default hardness (0.8), a 60 px brush dragged through the ball's middle.
  const hint = removeStroke([150, 190], [310, 190], 60, 0.8)
  const png = await sharp(hint, { raw: { width, height, channels: 1 } })
    .png()
    .toBuffer()
  await api.touchUp({ target: { kind: 'batch', batch_id: batch.id, item_id: item.id }, hint: png.toString('base64') })
  const after = await alphaOf(file)

  const under = [...hint.keys()].filter((i) => hint[i]! <= STRONG)
  const rim = [...hint.keys()].filter((i) => hint[i]! > STRONG && hint[i]! < RIM)
  // The ball was there: the stroke covers thousands of its opaque pixels, and a rim round them.
  expect(under.filter((i) => before[i]! === 255).length).toBeGreaterThan(5000)
  expect(rim.length).toBeGreaterThan(100)
  const left = under.filter((i) => after[i]! !== 0)
  expect(left.length, `pixels under the stroke not removed, e.g. alpha ${left.slice(0, 5).map((i) => after[i])}`).toBe(0)
  // The rim fades the model's alpha in proportion: never above the stroke's share of 255.
  const over = rim.filter((i) => after[i]! > Math.ceil((255 * (hint[i]! - STRONG)) / (RIM - STRONG)))
  expect(over.length).toBe(0)
  // Beyond the band round the stroke, nothing changed.
  const band = hintBand(width, height)
  const painted = [...hint.keys()].filter((i) => hint[i]! < 128)
  const xs = painted.map((i) => i % width)
  const ys = painted.map((i) => Math.floor(i / width))
  const [x0, x1, y0, y1] = [Math.min(...xs) - band, Math.max(...xs) + band, Math.min(...ys) - band, Math.max(...ys) + band]
  let changedFar = 0
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if ((x < x0 || x > x1 || y < y0 || y > y1) && after[y * width + x] !== before[y * width + x]) changedFar++
  expect(changedFar).toBe(0)
})
