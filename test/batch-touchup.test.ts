/**
 * Touch-up of a done batch file through the app API, with the real engine, model, sandbox and
 * sharp: the preview with strokes (no model run: the mask cache), Save replacing every output of
 * the file (PNG, and every variation of a layered PSD: its layer mask) with the previous version
 * kept beside it, the item and the report recording it, and every refusal with its exact code.
 * Look-again boxes: the preview runs the model on the box's crop, and Save makes the same.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { initializeCanvas, readPsd, type Layer } from 'ag-psd'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BatchRequest } from '../src/shared/batches'
import type { IpcHandlers } from '../src/shared/ipc'
import { fileReviewLevel, WORTH_A_LOOK } from '../src/shared/review'
import type { TouchUpTarget } from '../src/shared/touchup'
import { createAppApi, type AppHost } from '../src/main/app-api/app-api'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { EngineError } from '../src/main/engine/errors'
import { inSmallSubjectBox, SCENE, scenePng, SMALL_SUBJECT, smallSubjectPng, smallSubjectScores } from './helpers/fixtures'
import { tempDir } from './helpers/engine'
import { address, settled, until } from './helpers/batches'
import { waitFor } from './helpers/wait'
import { ERROR_STATUS } from '../src/shared/errors'

const { width, height } = SCENE
/** A background rectangle (right of the ball) marked keep, and the ball's middle marked remove: [x, y, w, h]. */
const KEEP = [420, 30, 60, 60] as const
const REMOVE = [200, 160, 60, 60] as const

async function hintPng(w: number = width, h: number = height): Promise<string> {
  const grey = Buffer.alloc(w * h, 128)
  const sx = w / width
  const sy = h / height
  for (const [[x0, y0, rw, rh], v] of [
    [KEEP, 255],
    [REMOVE, 0]
  ] as const) {
    for (let y = Math.round(y0 * sy); y < Math.round((y0 + rh) * sy); y++)
      grey.fill(v, y * w + Math.round(x0 * sx), y * w + Math.round((x0 + rw) * sx))
  }
  return (
    await sharp(grey, { raw: { width: w, height: h, channels: 1 } })
      .png()
      .toBuffer()
  ).toString('base64')
}

/** Mean of a plane over a rectangle, scaled from the scene's size to the plane's. */
function meanIn(plane: Buffer, w: number, h: number, [x0, y0, rw, rh]: readonly number[], step = 1): number {
  const sx = w / width
  const sy = h / height
  let sum = 0
  let n = 0
  for (let y = Math.round(y0! * sy); y < Math.round((y0! + rh!) * sy); y++) {
    for (let x = Math.round(x0! * sx); x < Math.round((x0! + rw!) * sx); x++) {
      sum += plane[(y * w + x) * step]!
      n++
    }
  }
  return sum / n
}

async function alphaOfFile(path: string | Buffer): Promise<Buffer> {
  return sharp(path).ensureAlpha().extractChannel(3).raw().toBuffer()
}

let root: string
let engine: Engine
let service: BatchService
let api: IpcHandlers

beforeAll(async () => {
  initializeCanvas(
    () => {
      throw new Error('no canvas')
    },
    ((w: number, h: number) => ({ width: w, height: h, data: new Uint8ClampedArray(w * h * 4) })) as never
  )
  root = tempDir('clipdesk-touchup-')
  engine = new Engine({ dataDir: join(root, 'data') })
  engine.start()
  service = new BatchService(engine)
  service.start()
  // The host is not used by the touch-up methods: only the engine and the batches are.
  api = createAppApi({ engine, batches: service, host: {} as AppHost, address })
})
afterAll(async () => {
  await service.stop()
  await engine.stop()
  rmSync(root, { recursive: true, force: true })
})

async function doneBatch(request: BatchRequest, out: string): Promise<{ batchId: string; itemId: string }> {
  const batch = await service.create({ request, destination: out })
  await service.add(batch.id, [{ bytes: await scenePng(), rel_path: 'ball.png' }])
  await until(service, batch.id, settled)
  const item = service.detail(batch.id, address).items[0]!
  expect(item.status).toBe('done')
  return { batchId: batch.id, itemId: item.id }
}

describe('touch-up of a batch file', () => {
  let target: TouchUpTarget & { kind: 'batch' }
  let out: string

  beforeAll(async () => {
    out = join(root, 'png')
    const { batchId, itemId } = await doneBatch({ mode: 'clipping', output_format: 'png', params: null }, out)
    target = { kind: 'batch', batch_id: batchId, item_id: itemId }
  })

  it('previews the cutout with the strokes, from the cached mask', async () => {
    const plain = await api.touchUpPreview({ target })
    expect([plain.width, plain.height]).toEqual([width, height])
    expect(plain.preview).toEqual({ width, height })
    expect(plain.photo).toBeTypeOf('string')
    const before = await alphaOfFile(Buffer.from(plain.png, 'base64'))
    // The model finds the ball: its middle kept, the corner of the gradient dropped.
    expect(meanIn(before, width, height, REMOVE)).toBeGreaterThan(200)
    expect(meanIn(before, width, height, KEEP)).toBeLessThan(50)

    const hinted = await api.touchUpPreview({ target, hint: await hintPng() })
    expect(hinted.photo).toBeUndefined()
    const after = await alphaOfFile(Buffer.from(hinted.png, 'base64'))
    expect(meanIn(after, width, height, REMOVE)).toBeLessThanOrEqual(25)
    expect(meanIn(after, width, height, KEEP)).toBeGreaterThanOrEqual(230)
  })

  it('Save replaces the file in the destination, keeps the previous beside it, and the item and report say so', async () => {
    const file = join(out, 'ball.png')
    const original = readFileSync(file)
    const res = await api.touchUp({ target, hint: await hintPng() })
    expect(res).toEqual({ outputs: [file], previous: [join(out, 'ball.prev-1.png')], touch_ups: 1 })
    expect(readFileSync(join(out, 'ball.prev-1.png')).equals(original)).toBe(true)
    const alpha = await alphaOfFile(file)
    expect(meanIn(alpha, width, height, REMOVE)).toBeLessThanOrEqual(25)
    expect(meanIn(alpha, width, height, KEEP)).toBeGreaterThanOrEqual(230)

    const item = service.detail(target.batch_id, address).items[0]!
    expect(item.touch_ups).toBe(1)
    expect(item.touched_up_at).toBeTypeOf('number')
    expect(item.outputs).toEqual([file])
    const report = join(out, 'clipdesk-report.json')
    // Both files: the readable one is written after the JSON.
    const text = join(out, 'clipdesk-report.txt')
    await waitFor(
      'the report notes the touch-up',
      () =>
        existsSync(report) &&
        JSON.parse(readFileSync(report, 'utf8')).touched_up?.length === 1 &&
        readFileSync(text, 'utf8').includes('touched up')
    )
    const json = JSON.parse(readFileSync(report, 'utf8'))
    expect(json.touched_up[0]).toMatchObject({ input: 'ball.png', times: 1 })
    expect(json.counts.touched_up).toBe(1)
    expect(readFileSync(join(out, 'clipdesk-report.txt'), 'utf8')).toContain('1 photo touched up (ball.png)')

    // A second touch-up keeps the first one's file as the next previous version.
    const touched = readFileSync(file)
    const again = await api.touchUp({ target, hint: await hintPng() })
    expect(again.previous).toEqual([join(out, 'ball.prev-2.png')])
    expect(again.touch_ups).toBe(2)
    expect(readFileSync(join(out, 'ball.prev-2.png')).equals(touched)).toBe(true)
  })

  it('re-renders every variation of a layered PSD: the layer mask takes the strokes', async () => {
    const psdOut = join(root, 'psd')
    const request: BatchRequest = {
      mode: 'params',
      output_format: 'psd',
      params: 'variations=clipping,compose;background=#FFFFFF',
      all_variations: true
    }
    const { batchId, itemId } = await doneBatch(request, psdOut)
    const outputs = service.detail(batchId, address).items[0]!.outputs
    expect(outputs).toHaveLength(2)
    const res = await api.touchUp({ target: { kind: 'batch', batch_id: batchId, item_id: itemId }, hint: await hintPng() })
    expect(res.outputs).toEqual(outputs)
    for (const [i, path] of outputs.entries()) {
      expect(existsSync(res.previous[i]!)).toBe(true)
      const psd = readPsd(readFileSync(path), { useImageData: true })
      const subject = psd.children!.find((l: Layer) => l.name === 'Subject')!
      const m = subject.mask!.imageData!
      // The layer mask as a plane of the whole canvas (the mask may be cropped to its box).
      const plane = Buffer.alloc(width * height, subject.mask!.defaultColor ?? 0)
      for (let y = 0; y < m.height; y++)
        for (let x = 0; x < m.width; x++)
          plane[(y + (subject.mask!.top ?? 0)) * width + x + (subject.mask!.left ?? 0)] = m.data[(y * m.width + x) * 4]!
      expect(meanIn(plane, width, height, REMOVE)).toBeLessThanOrEqual(25)
      expect(meanIn(plane, width, height, KEEP)).toBeGreaterThanOrEqual(230)
    }
  })

  it('refuses what it cannot do, with the exact code', async () => {
    const hint = await hintPng()
    const other = (p: Partial<typeof target>): TouchUpTarget => ({ ...target, ...p })
    const refused = async (call: Promise<unknown>, code: string, status: number, field?: string): Promise<void> => {
      const err = await call.then(
        () => null,
        (e: unknown) => e as EngineError
      )
      expect(err, `expected ${code}`).toBeInstanceOf(EngineError)
      expect([err!.code, ERROR_STATUS[err!.code]]).toEqual([code, status])
      if (field) expect(err!.details?.[0]?.field).toBe(field)
    }
    await refused(api.touchUp({ target: other({ batch_id: 'nope' }), hint }), 'not_found', 404)
    await refused(api.touchUp({ target: other({ item_id: 'nope' }), hint }), 'not_found', 404)
    await refused(api.touchUpPreview({ target: other({ batch_id: 'nope' }) }), 'not_found', 404)
    await refused(api.touchUpPreview({ target: other({ item_id: 'nope' }) }), 'not_found', 404)
    // Bad arguments: no hint for Save, text that is not base64, no target, a target of no known kind.
    await refused(api.touchUp({ target } as never), 'validation_failed', 422, 'hint')
    await refused(api.touchUpPreview({ target, hint: 'not base64!' }), 'validation_failed', 422, 'hint')
    await refused(api.touchUp({ hint } as never), 'validation_failed', 422, 'target')
    await refused(
      api.touchUp({ target: { kind: 'album', batch_id: target.batch_id, item_id: target.item_id }, hint } as never),
      'validation_failed',
      422,
      'target.kind'
    )
    // A hint of the wrong size, or not an image.
    const small = await hintPng(100, 75)
    await refused(api.touchUp({ target, hint: small }), 'validation_failed', 422, 'hint')
    await refused(api.touchUpPreview({ target, hint: small }), 'validation_failed', 422, 'hint')
    const text = Buffer.from('not an image at all').toString('base64')
    await refused(api.touchUp({ target, hint: text }), 'validation_failed', 422, 'hint')
    await refused(api.touchUpPreview({ target, hint: text }), 'validation_failed', 422, 'hint')
    // A file that is not done (refused when added).
    await service.add(target.batch_id, [{ refused: 'Not an image: skipped.', rel_path: 'notes.txt', not_image: true }])
    const notDone = service.detail(target.batch_id, address).items.find((i) => i.name === 'notes.txt')!
    await refused(api.touchUp({ target: other({ item_id: notDone.id }), hint }), 'conflict', 409)
    await refused(api.touchUpPreview({ target: other({ item_id: notDone.id }) }), 'conflict', 409)
    // A second Save while one is under way.
    const first = api.touchUp({ target, hint })
    await refused(api.touchUp({ target, hint }), 'conflict', 409)
    await first
  })

  it('refuses a file whose original is no longer kept', async () => {
    const gone = join(root, 'gone')
    const { batchId, itemId } = await doneBatch({ mode: 'clipping', output_format: 'png', params: null }, gone)
    const item = service.store.item(itemId)!
    rmSync(engine.job(item.jobId!)!.inputPath!)
    const lost: TouchUpTarget = { kind: 'batch', batch_id: batchId, item_id: itemId }
    await expect(api.touchUpPreview({ target: lost })).rejects.toMatchObject({ code: 'not_found' })
    await expect(api.touchUp({ target: lost, hint: await hintPng() })).rejects.toMatchObject({ code: 'not_found' })
  })
})

describe('a touched-up file leaves "to check"', () => {
  it('a saved touch-up clears the level: the item, the batch\'s counts and the report say "touched up", not "to check"', async () => {
    // A flat grey photo: its cutout keeps nothing, so it scores WORTH_A_LOOK ("Worth a look").
    const out = join(root, 'grey')
    const batch = await service.create({ request: { mode: 'clipping', output_format: 'png', params: null }, destination: out })
    const [w, h] = [96, 64]
    await service.add(batch.id, [
      {
        bytes: await sharp({ create: { width: w, height: h, channels: 3, background: '#808080' } })
          .png()
          .toBuffer(),
        rel_path: 'grey.png'
      }
    ])
    await until(service, batch.id, settled)
    const before = service.detail(batch.id, address)
    const item = before.items[0]!
    expect(item.status).toBe('done')
    expect(fileReviewLevel(item.uncertainty, item.touch_ups)).toBe('worth_a_look')
    expect(before.counts).toMatchObject({ done: 1, to_check: 1, likely_wrong: 0, touched_up: 0 })
    const report = join(out, 'clipdesk-report.json')
    await waitFor('the first report', () => existsSync(report))
    expect(JSON.parse(readFileSync(report, 'utf8')).cutouts).toEqual([
      { input: 'grey.png', uncertainty: WORTH_A_LOOK, review: 'worth_a_look', to_check: true }
    ])

    // A Keep stroke over the middle, saved.
    const hint = Buffer.alloc(w * h, 128)
    for (let y = 16; y < 48; y++) hint.fill(255, y * w + 24, y * w + 72)
    const target: TouchUpTarget = { kind: 'batch', batch_id: batch.id, item_id: item.id }
    await api.touchUp({
      target,
      hint: (
        await sharp(hint, { raw: { width: w, height: h, channels: 1 } })
          .png()
          .toBuffer()
      ).toString('base64')
    })

    const after = service.detail(batch.id, address)
    const touched = after.items[0]!
    expect(touched.touch_ups).toBe(1)
    // The score of the cutout the model made stays; the level is gone with the touch-up.
    expect(touched.uncertainty).toBe(WORTH_A_LOOK)
    expect(fileReviewLevel(touched.uncertainty, touched.touch_ups)).toBeNull()
    expect(after.counts).toMatchObject({ done: 1, to_check: 0, likely_wrong: 0, touched_up: 1 })
    await waitFor('the report written again', () => JSON.parse(readFileSync(report, 'utf8')).counts.touched_up === 1)
    const json = JSON.parse(readFileSync(report, 'utf8'))
    expect(json.counts).toMatchObject({ to_check: 0, likely_wrong: 0, touched_up: 1 })
    expect(json.cutouts).toEqual([{ input: 'grey.png', uncertainty: WORTH_A_LOOK, review: null, to_check: false, touched_up: true }])
    // The text is written after the JSON: wait for it too.
    await waitFor('the text report written again', () =>
      readFileSync(join(out, 'clipdesk-report.txt'), 'utf8').includes('1 photo touched up (grey.png)')
    )
    const txt = readFileSync(join(out, 'clipdesk-report.txt'), 'utf8')
    expect(txt).toContain('0 cutouts to check')
    expect(txt).not.toContain('To check (most uncertain first)')
  })
})

describe('look-again boxes in touch-up', () => {
  const { width: W, height: H, box } = SMALL_SUBJECT
  let target: TouchUpTarget
  let out: string
  /** A hint with no strokes: grey everywhere. */
  let grey: string

  beforeAll(async () => {
    out = join(root, 'small')
    const batch = await service.create({ request: { mode: 'clipping', output_format: 'png', params: null }, destination: out })
    await service.add(batch.id, [{ bytes: await smallSubjectPng(), rel_path: 'small.png' }])
    await until(service, batch.id, settled)
    const item = service.detail(batch.id, address).items[0]!
    expect(item.status).toBe('done')
    target = { kind: 'batch', batch_id: batch.id, item_id: item.id }
    grey = (
      await sharp(Buffer.alloc(W * H, 128), { raw: { width: W, height: H, channels: 1 } })
        .png()
        .toBuffer()
    ).toString('base64')
  })

  it("the preview runs the model on the box's crop, and Save makes the same at full size", async () => {
    const plain = await api.touchUpPreview({ target })
    expect(plain.preview).toEqual({ width: W, height: H })
    const plainAlpha = await alphaOfFile(Buffer.from(plain.png, 'base64'))
    const looked = await api.touchUpPreview({ target, regions: [box] })
    const lookedAlpha = await alphaOfFile(Buffer.from(looked.png, 'base64'))
    expect(smallSubjectScores(plainAlpha)).toBeLessThan(60)
    expect(smallSubjectScores(lookedAlpha)).toBeGreaterThan(200)

    const file = join(out, 'small.png')
    const before = await alphaOfFile(file)
    await api.touchUp({ target, hint: grey, regions: [box] })
    const saved = await alphaOfFile(file)
    expect(smallSubjectScores(saved)).toBeGreaterThan(200)
    // Outside the box, the file is as it was; inside, as the preview showed it (the preview is at full size here).
    let diff = 0
    let n = 0
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const i = y * W + x
        if (!inSmallSubjectBox(x, y)) expect(saved[i]).toBe(before[i])
        else {
          diff += Math.abs(saved[i]! - lookedAlpha[i]!)
          n++
        }
      }
    expect(diff / n).toBeLessThan(2)
  })

  it('refuses boxes it cannot use, naming regions', async () => {
    const outside = { x: W + 10, y: 0, width: 40, height: 40 }
    await expect(api.touchUpPreview({ target, regions: [outside] })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'regions' }]
    })
    await expect(api.touchUp({ target, hint: grey, regions: [outside] })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'regions' }]
    })
    const nine = Array.from({ length: 9 }, () => box)
    await expect(api.touchUpPreview({ target, regions: nine })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'regions' }]
    })
    await expect(api.touchUp({ target, hint: grey, regions: [{ ...box, width: 4 }] })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'regions.0.width' }]
    })
    // Two boxes of three quarters of the photo each: more than its area between them, before any model run.
    const wide = [
      { x: 0, y: 0, width: W, height: Math.ceil((H * 3) / 4) },
      { x: 0, y: Math.floor(H / 4), width: W, height: H - Math.floor(H / 4) }
    ]
    await expect(api.touchUpPreview({ target, regions: wide })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'regions', issue: expect.stringMatching(/between them/) }]
    })
    await expect(api.touchUp({ target, hint: grey, regions: wide })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'regions', issue: expect.stringMatching(/between them/) }]
    })
  })
})
