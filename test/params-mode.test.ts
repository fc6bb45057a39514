/**
 * One meaning for a parameter set on every way in (docs/params.md "Mode and parameter set"): a
 * set without a mode runs as `mode=params`; with an explicit `mode=clipping`, a key that cannot
 * apply is refused with 422 naming the key and the mode, never dropped. Over HTTP, the app API
 * (IPC), a batch's and a watched folder's settings. Jobs stay queued (no model run).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngineHandlers } from '../src/main/app-api/engine-handlers'
import { BatchService } from '../src/main/batches/service'
import { EngineError } from '../src/main/engine/errors'
import { WatchFolders } from '../src/main/watch/config'
import { WatchStore } from '../src/main/watch/store'
import { blockPng } from './helpers/cutout'
import { multipart, startTestServer, tempDir, type TestServer } from './helpers/engine'
import { json } from './helpers/http'
import { ERROR_STATUS } from '../src/shared/errors'
import { modeConflictKeys, modeConflictLine } from '../src/shared/params-mode'

let server: TestServer
let png: Buffer
beforeAll(async () => {
  server = await startTestServer({ run: false })
  png = await blockPng(60, 40, { x: 10, y: 10, width: 30, height: 20 })
})
afterAll(() => server.close())

async function upload(fields: Record<string, string>, key = server.key) {
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': key },
    body: multipart(fields, { bytes: png, type: 'image/png', name: 'a.png' })
  })
  return { status: res.status, body: await json(res) }
}

describe('a set without a mode runs as mode=params', () => {
  it('params=ecommerce-white alone: mode params, white, shadow, the shadowed version as the main file', async () => {
    const { status, body } = await upload({ params: 'ecommerce-white' })
    expect(status).toBe(202)
    expect(body).toMatchObject({ status: 'queued', mode: 'params' })
    expect(server.engine.jobParamSet(body.job_id)).toMatchObject({
      background: { kind: 'color', rgba: [255, 255, 255, 255] },
      shadow: 'top',
      size: { kind: 'box', width: 2000, height: 2000 },
      primary: 'shadowTop'
    })
  })

  it('inline pairs alone (background=beige;size=1200x1500): mode params, the beige applied', async () => {
    const { status, body } = await upload({ params: 'background=beige;size=1200x1500' })
    expect(status).toBe(202)
    expect(body.mode).toBe('params')
    expect(server.engine.jobParamSet(body.job_id)).toMatchObject({
      background: { kind: 'color', rgba: [245, 245, 220, 255] },
      primary: 'compose'
    })
  })

  it('a set asking for a shadow and naming no main file: the main file is shadowTop; shadow=none keeps compose', async () => {
    const shadow = await upload({ mode: 'params', params: 'background=white;shadow=top' })
    expect(server.engine.jobParamSet(shadow.body.job_id)!.primary).toBe('shadowTop')
    const none = await upload({ mode: 'params', params: 'background=white;shadow=none' })
    expect(server.engine.jobParamSet(none.body.job_id)!.primary).toBe('compose')
    const named = await upload({ mode: 'params', params: 'background=white;shadow=top;primary=compose' })
    expect(server.engine.jobParamSet(named.body.job_id)!.primary).toBe('compose')
  })

  it('no mode and no set: clipping, as before', async () => {
    const { status, body } = await upload({})
    expect(status).toBe(202)
    expect(body.mode).toBe('clipping')
  })
})

describe('an explicit mode=clipping refuses the keys it cannot apply: 422 validation_failed naming key and mode', () => {
  const cases: Array<[string, string, string[]]> = [
    ['a background colour', 'background=#F5F5DC', ['params.background']],
    ['a preset with background, shadow and main file', 'ecommerce-white', ['params.background', 'params.primary', 'params.shadow']],
    ['a shadow', 'shadow=top', ['params.shadow']],
    ['variations with a background', 'variations=clipping,compose', ['params.variations']],
    ['a main file it does not make', 'primary=compose;variations=compose', ['params.primary', 'params.variations']]
  ]
  it.each(cases)('%s', async (_name, params, fields) => {
    const { key, info } = server.engine.createKey({ credits: 1 })
    const { status, body } = await upload({ mode: 'clipping', params }, key)
    expect(status).toBe(422)
    expect(body.error.code).toBe('validation_failed')
    expect(body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(fields)
    for (const d of body.error.details) expect(d.issue).toContain('mode=clipping')
    expect(server.engine.key(info.id)!.credits).toBe(1) // nothing charged
  })

  it('names the preset a refused key came from', async () => {
    const { body } = await upload({ mode: 'clipping', params: 'ecommerce-white' })
    const background = body.error.details.find((d: { field: string }) => d.field === 'params.background')
    expect(background.issue).toBe(
      'does not apply to mode=clipping, which makes the subject on transparency (from the preset "ecommerce-white"); leave mode out (a parameter set alone runs as mode=params) or use mode=params'
    )
  })

  it('keys that apply to clipping are taken: framing, transparency, the mask', async () => {
    const { status, body } = await upload({
      mode: 'clipping',
      params:
        'background=transparent;shadow=none;crop=subject;size=800x800;margin=4%,6%,8%,6%;position=left,bottom;variations=clipping,mask'
    })
    expect(status).toBe(202)
    expect(server.engine.jobParamSet(body.job_id)).toMatchObject({
      variations: ['clipping', 'mask'],
      primary: 'clipping',
      margin: [
        { unit: '%', value: 4 },
        { unit: '%', value: 6 },
        { unit: '%', value: 8 },
        { unit: '%', value: 6 }
      ],
      position: 'left,bottom'
    })
  })

  it('mode=background takes every key (it only gives the defaults)', async () => {
    const { status, body } = await upload({ mode: 'background', params: 'background=beige;shadow=none;primary=clipping' })
    expect(status).toBe(202)
    expect(body.mode).toBe('background')
  })

  it('the app API (IPC) answers the same: 422 validation_failed, and a set alone runs as params', async () => {
    const ipc = createEngineHandlers(server.engine)
    const file = { bytes: new Uint8Array(png), name: 'a.png', type: 'image/png' }
    const refused = await ipc.upload({ mode: 'clipping', params: 'background=#F5F5DC', file })
    expect(refused.status).toBe(422)
    expect('error' in refused.body && refused.body.error.code).toBe('validation_failed')
    expect('error' in refused.body && refused.body.error.details!.map((d) => d.field)).toEqual(['params.background'])
    const alone = await ipc.upload({ params: 'ecommerce-white', file })
    expect(alone.status).toBe(202)
    expect('mode' in alone.body && alone.body.mode).toBe('params')
  })
})

describe('watched folders: the same rule when the folder is saved', () => {
  it('a set without a mode is saved as mode params; mode=clipping with a background is refused naming the key', () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'in'))
    mkdirSync(join(dir, 'in2'))
    const folders = new WatchFolders(new WatchStore(server.engine.featureTables()), server.engine.presetLookup)
    expect(folders.add({ path: join(dir, 'in'), params: 'ecommerce-white' }).request).toMatchObject({
      mode: 'params',
      params: 'ecommerce-white'
    })
    let refusal: unknown = null
    try {
      folders.add({ path: join(dir, 'in2'), mode: 'clipping', params: 'ecommerce-white' })
    } catch (err) {
      refusal = err
    }
    expect(refusal).toBeInstanceOf(EngineError)
    expect((refusal as EngineError).code).toBe('validation_failed')
    expect(ERROR_STATUS[(refusal as EngineError).code]).toBe(422)
    expect((refusal as EngineError).details!.map((d) => d.field).sort()).toEqual(['params.background', 'params.primary', 'params.shadow'])
  })
})

describe('batches: the same rule when the batch is created', () => {
  it('mode=clipping with a background is refused before the batch exists, naming the key and the mode', async () => {
    const service = new BatchService(server.engine)
    const before = service.list().length
    const err = await service
      .create({ request: { mode: 'clipping', output_format: 'png', params: 'background=#F5F5DC' }, destination: join(tempDir(), 'out') })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(EngineError)
    expect((err as EngineError).code).toBe('validation_failed')
    expect(ERROR_STATUS[(err as EngineError).code]).toBe(422)
    expect((err as EngineError).details).toEqual([
      { field: 'params.background', issue: expect.stringContaining('does not apply to mode=clipping') }
    ])
    expect(service.list()).toHaveLength(before)
  })
})

describe("the command line's line for keys a mode cannot apply", () => {
  it('names each key once, the set own keys apart from those of its preset, and the way out once', () => {
    const white = { kind: 'color' as const, rgba: [255, 255, 255, 255] as [number, number, number, number] }
    const line = modeConflictLine(
      'clipping',
      modeConflictKeys('clipping', { background: white, variations: ['compose', 'shadowTop'] }, { shadow: 'top' }, 'shop-beige')
    )
    expect(line).toBe(
      'background and variations (compose, shadowTop); shadow from the preset "shop-beige" do not apply to --mode clipping (the subject on transparency, no background or shadow); leave --mode out or use --mode params'
    )
    expect(line.split('--mode params')).toHaveLength(2)
    expect(modeConflictKeys('background', { background: white }, {}, null)).toEqual([])
  })
})
