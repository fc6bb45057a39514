/**
 * The machine's optimised copy of a model and the WebAssembly fallback, with real ONNX Runtime
 * (native and web): on a generated 1×1-convolution graph whose mask is known, and once on the
 * built-in IS-Net to show that the copy gives exactly the model's own mask.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Segmenter, type SegmentInput } from '../mask/mask'
import { prestartSessionWorker, takeSpareSessionWorker } from './session-worker'
import { SCENE, scenePng } from '../../../../../test/fixtures/test-fixtures'
import { decodeImage } from '../../pipeline/decode/decode'
import type { ModelDescriptor } from './descriptors'
import { lastSession } from './last-session'
import { convSegmentationModel } from '../models/onnx-writer'

const dirs: string[] = []
const open: Segmenter[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()))
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  delete process.env.CLIPDESK_NATIVE_ORT
})
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'clipdesk-machine-cache-'))
  dirs.push(d)
  return d
}

const descriptor: ModelDescriptor = {
  family: 'custom',
  input: { size: [64, 64], dynamic: false, channelOrder: 'rgb', scale: 255, mean: [0, 0, 0], std: [1, 1, 1] },
  output: { kind: 'probabilities' },
  licence: 'test',
  source: 'generated',
  speedClass: 'fast'
}
// mask = red / 255: left half 200, right half 40.
const graph = convSegmentationModel({ size: [64, 64], weights: [1, 0, 0] })
const key = 'conv-red@0123456789abcdef'

async function segmenter(over: Partial<Parameters<typeof Segmenter.create>[0]> = {}): Promise<Segmenter> {
  const s = await Segmenter.create({ model: { key, load: async () => graph.slice(), descriptor }, threads: 1, ...over })
  open.push(s)
  return s
}

function halves(): SegmentInput {
  const data = Buffer.alloc(40 * 30 * 3)
  for (let y = 0; y < 30; y++) for (let x = 0; x < 40; x++) data.set(x < 20 ? [200, 10, 10] : [40, 250, 250], (y * 40 + x) * 3)
  return { data, width: 40, height: 30, channels: 3 }
}
const sides = (mask: Buffer): [number, number] => [mask[15 * 40 + 4]!, mask[15 * 40 + 35]!]

describe('the optimised copy of a model', () => {
  it('is made at the first load, used from the second, and gives the same mask', async () => {
    const cacheDir = tempDir()
    const first = await segmenter({ cacheDir })
    expect(first.settings).toMatchObject({ backend: 'native', optimizedModel: 'made', threads: 1, chosenBy: 'setting' })
    const made = readdirSync(join(cacheDir, 'models')).sort()
    expect(made).toHaveLength(2)
    expect(made[0]).toMatch(/^conv_red_0123456789abcdef-[0-9a-f]{16}\.json$/)
    expect(made[1]).toMatch(/\.ort$/)
    const a = await first.segment(halves())
    expect(sides(a)).toEqual([200, 40])

    const second = await segmenter({ cacheDir })
    expect(second.settings.optimizedModel).toBe('cached')
    expect(Buffer.compare(await second.segment(halves()), a)).toBe(0)
  })

  it('a damaged copy is not used: the session is built from the model again and the copy replaced', async () => {
    const cacheDir = tempDir()
    await (await segmenter({ cacheDir })).close()
    const ort = readdirSync(join(cacheDir, 'models')).find((f) => f.endsWith('.ort'))!
    const bytes = readFileSync(join(cacheDir, 'models', ort))
    bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0xff
    writeFileSync(join(cacheDir, 'models', ort), bytes)

    const s = await segmenter({ cacheDir })
    expect(s.settings.optimizedModel).toBe('made')
    expect(sides(await s.segment(halves()))).toEqual([200, 40])
    expect((await segmenter({ cacheDir })).settings.optimizedModel).toBe('cached')
  })

  it('is not made without a cache folder, nor for sessions with options of their own', async () => {
    expect((await segmenter({ cacheDir: null })).settings.optimizedModel).toBe('none')
    const cacheDir = tempDir()
    const custom = await segmenter({ cacheDir, graphOptimizationLevel: 'basic' })
    expect(custom.settings.optimizedModel).toBe('none')
    expect(readdirSync(cacheDir)).toEqual([])
  })

  it('on the built-in IS-Net gives exactly the mask of a session built from the model itself', async () => {
    const cacheDir = tempDir()
    const image = await decodeImage(await scenePng(), { maxPixels: 1e8 })
    const built = await Segmenter.create({ variant: 'medium', cacheDir })
    open.push(built)
    expect(built.settings.optimizedModel).toBe('made')
    const a = await built.segmentAtModelSize(image)
    await built.close()
    const fromCopy = await Segmenter.create({ variant: 'medium', cacheDir })
    open.push(fromCopy)
    expect(fromCopy.settings).toMatchObject({ optimizedModel: 'cached', arena: true, backend: 'native' })
    const b = await fromCopy.segmentAtModelSize(image)
    expect(Buffer.compare(a.mask, b.mask)).toBe(0)
    expect(SCENE.width).toBeGreaterThan(0)
  })
})

describe('a session worker started ahead (clipdesk process and serve)', () => {
  it('is taken by the first session of the default backend, which gives the same mask; a WebAssembly session leaves it', async () => {
    prestartSessionWorker()
    const wasm = await segmenter({ device: 'wasm', cacheDir: null })
    // (Had it taken the prestarted worker, whose native runtime is loaded, it would run native.)
    expect(wasm.settings.backend).toBe('wasm')
    const s = await segmenter({ cacheDir: null })
    expect(s.settings.backend).toBe('native')
    expect(sides(await s.segment(halves()))).toEqual([200, 40])
    expect(takeSpareSessionWorker({})).toBeNull() // the native session took it
  })

  it("falls back to WebAssembly at the session's start when the native runtime did not load in it, and says why", async () => {
    process.env.CLIPDESK_NATIVE_ORT = '0'
    prestartSessionWorker()
    const s = await segmenter({ cacheDir: null })
    expect(takeSpareSessionWorker({})).toBeNull()
    expect(s.device).toBe('wasm')
    expect(s.deviceWarning).toMatch(/^the native ONNX Runtime could not be loaded \(.*CLIPDESK_NATIVE_ORT=0.*\); running on WebAssembly/)
    expect(sides(await s.segment(halves()))).toEqual([200, 40])
  })
})

describe("the session built ahead (the machine's last session, models/last-session.ts)", () => {
  const copyPath = (cacheDir: string): string =>
    join(cacheDir, 'models', readdirSync(join(cacheDir, 'models')).find((f) => f.endsWith('.ort'))!)

  it("is remembered with the engine's options (threads that sleep) and the copy's, and taken by the first session asking for it, with the same mask", async () => {
    const cacheDir = tempDir()
    const first = await segmenter({ cacheDir })
    const a = await first.segment(halves())
    await first.close()
    const last = lastSession(cacheDir)
    expect(last?.source).toEqual({ kind: 'file', path: copyPath(cacheDir), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(last?.options).toMatchObject({
      intraOpNumThreads: 1,
      graphOptimizationLevel: 'disabled',
      extra: {
        session: { intra_op: { allow_spinning: '0' }, use_ort_model_bytes_directly: '1', use_ort_model_bytes_for_initializers: '1' }
      }
    })

    prestartSessionWorker(last)
    const s = await segmenter({ cacheDir })
    expect(s.builtAhead).toBe(true)
    expect(s.settings).toMatchObject({ optimizedModel: 'cached', threads: 1, backend: 'native' })
    expect(Buffer.compare(await s.segment(halves()), a)).toBe(0)
    expect(takeSpareSessionWorker({})).toBeNull()
  })

  it('is released when the first session asks for other options, which is then built and remembered', async () => {
    const cacheDir = tempDir()
    await (await segmenter({ cacheDir, threads: 1 })).close()
    prestartSessionWorker(lastSession(cacheDir))
    const s = await segmenter({ cacheDir, threads: 2 })
    expect(s.builtAhead).toBe(false)
    expect(s.settings).toMatchObject({ optimizedModel: 'cached', threads: 2 })
    expect(sides(await s.segment(halves()))).toEqual([200, 40])
    expect(lastSession(cacheDir)?.options).toMatchObject({ intraOpNumThreads: 2 })
  })

  it('is not used when the copy no longer matches its SHA-256: the session is built from the model and the copy made again', async () => {
    const cacheDir = tempDir()
    await (await segmenter({ cacheDir })).close()
    const last = lastSession(cacheDir)!
    const bytes = readFileSync(last.source.path)
    bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0xff
    writeFileSync(last.source.path, bytes)
    prestartSessionWorker(last)
    const s = await segmenter({ cacheDir })
    expect(s.builtAhead).toBe(false)
    expect(s.settings.optimizedModel).toBe('made')
    expect(sides(await s.segment(halves()))).toEqual([200, 40])
    const again = lastSession(cacheDir)!
    expect(createHash('sha256').update(readFileSync(again.source.path)).digest('hex')).toBe(again.source.sha256)
  })

  it('is nothing when the record is missing or not one the engine wrote', () => {
    const cacheDir = tempDir()
    expect(lastSession(cacheDir)).toBeNull()
    const file = join(cacheDir, 'last-session.json')
    const good = { source: { kind: 'file', path: '/x.ort', sha256: 'a'.repeat(64) }, options: { intraOpNumThreads: 2 } }
    writeFileSync(file, JSON.stringify(good))
    expect(lastSession(cacheDir)).toEqual(good)
    for (const bad of [
      '{',
      '[]',
      'null',
      JSON.stringify({ ...good, source: { ...good.source, kind: 'bytes' } }),
      JSON.stringify({ ...good, source: { ...good.source, sha256: 'zz' } }),
      JSON.stringify({ ...good, options: [] }),
      JSON.stringify({ source: good.source })
    ]) {
      writeFileSync(file, bad)
      expect(lastSession(cacheDir)).toBeNull()
    }
  })
})

describe('the WebAssembly fallback', () => {
  it('runs the model where the native runtime cannot load, and says so as the device', async () => {
    process.env.CLIPDESK_NATIVE_ORT = '0'
    const cacheDir = tempDir()
    const s = await segmenter({ cacheDir })
    expect(s.device).toBe('wasm')
    expect(s.deviceWarning).toMatch(/^the native ONNX Runtime could not be loaded \(.*CLIPDESK_NATIVE_ORT=0.*\); running on WebAssembly/)
    expect(s.settings).toMatchObject({ backend: 'wasm', optimizedModel: 'none', arena: false })
    expect(sides(await s.segment(halves()))).toEqual([200, 40])
    // No optimised copy is made for (or from) the WebAssembly build.
    expect(readdirSync(cacheDir, { recursive: true }).filter((f) => String(f).includes('.'))).toEqual([])
  })

  it('is the device `wasm` when asked for, also with a GPU device asked where nothing native loads', async () => {
    const s = await segmenter({ device: 'wasm', cacheDir: null })
    expect([s.device, s.settings.backend]).toEqual(['wasm', 'wasm'])
    expect(sides(await s.segment(halves()))).toEqual([200, 40])
    process.env.CLIPDESK_NATIVE_ORT = '0'
    const gpu = await segmenter({ device: 'cuda', cacheDir: null })
    expect(gpu.device).toBe('wasm')
    expect(gpu.deviceWarning).toMatch(/running on WebAssembly/)
  })
})
