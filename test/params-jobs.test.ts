/**
 * Modes `background` and `params`, parameter sets and presets, every output format, through
 * the HTTP API (and presets over IPC and the CLI).
 *
 * Refusals never run the model. The real model runs in six jobs, chosen so that together they
 * cover the three modes, the six output formats and both delivery modes (the variation ×
 * format matrix itself runs with a stand-in segmenter in pipeline/encode/variations-formats.test.ts).
 */
import { readPsd } from 'ag-psd'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngineHandlers } from '../src/main/app-api/engine-handlers'
import { alphaBounds } from '../src/main/engine/pipeline/compose/placement'
import { runCli } from './helpers/cli'
import { multipart, pollUntilSettled, startTestServer, tempDir, type TestServer } from './helpers/engine'
import { SCENE, scenePng } from './helpers/fixtures'
import { json } from './helpers/http'
import { psdWithoutCanvas } from './helpers/psd'

let server: TestServer
let png: Buffer

beforeAll(async () => {
  server = await startTestServer()
  png = await scenePng()
  psdWithoutCanvas()
})
afterAll(() => server.close())

async function upload(fields: Record<string, string>, opts: { key?: string; image?: Buffer } = {}) {
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': opts.key ?? server.key },
    body: multipart(fields, { bytes: opts.image ?? png, type: 'image/png', name: 'ball.png' })
  })
  return { status: res.status, body: await json(res) }
}

async function uploadJson(body: Record<string, unknown>) {
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': server.key, 'Content-Type': 'application/json' },
    body: JSON.stringify(body)
  })
  return { status: res.status, body: await json(res) }
}

async function download(url: string): Promise<{ bytes: Buffer; type: string | null }> {
  const res = await fetch(url)
  expect(res.status).toBe(200)
  return { bytes: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') }
}

async function runToDone(fields: Record<string, string>, image?: Buffer) {
  const accepted = await upload(fields, { image })
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
  expect(accepted.body).toMatchObject({ status: 'queued', mode: fields.mode ?? 'clipping' })
  const { status, body } = await pollUntilSettled(server, accepted.body.job_id)
  expect(status, JSON.stringify(body)).toBe(200)
  expect(body).toMatchObject({
    job_id: accepted.body.job_id,
    status: 'done',
    state: 'done',
    progress: 100,
    mode: fields.mode ?? 'clipping'
  })
  return body
}

const fileOf = (url: string) => new URL(url).pathname.split('/').at(-1)

describe('parameter sets are checked at upload: 422 naming each key, no job, no charge', () => {
  const cases: Array<[string, Record<string, string>, string[]]> = [
    ['bad values', { mode: 'params', params: 'size=0x0;shadow=left;quality=101' }, ['params.quality', 'params.shadow', 'params.size']],
    ['unknown key', { mode: 'params', params: 'ecommerce-white;colour=red' }, ['params.colour']],
    ['unknown preset', { mode: 'params', params: 'no-such-preset' }, ['params.preset']],
    ['unknown preset with pairs', { mode: 'background', params: 'no-such-preset;size=100' }, ['params.preset']],
    ['primary not made', { mode: 'background', params: 'primary=mask' }, ['params.primary']],
    ['primary outside its own variations', { mode: 'params', params: 'variations=compose;primary=clipping' }, ['params.primary']],
    ['margin leaves no room', { mode: 'params', params: 'size=200x200;margin=100px' }, ['params.margin']],
    ['margin 50 %', { mode: 'params', params: 'margin=50%' }, ['params.margin']],
    ['second look misspelt', { mode: 'clipping', params: 'look=allways' }, ['params.look']],
    ['bad set without a mode (runs as params)', { params: 'crop=all' }, ['params.crop']],
    ['JSON in a multipart text part', { mode: 'params', params: '{"size": 20000, "foo": 1}' }, ['params.foo', 'params.size']],
    ['broken JSON', { mode: 'params', params: '{"size": ' }, ['params']],
    ['over 2,048 characters', { mode: 'params', params: `shadow=none;${'x'.repeat(2040)}` }, ['params']],
    [
      'bad set and bad format together',
      { mode: 'params', params: 'position=middle', output_format: 'gif' },
      ['output_format', 'params.position']
    ]
  ]

  it.each(cases)('%s', async (_name, fields, expected) => {
    const { key, info } = server.engine.createKey({ credits: 1 })
    const { status, body } = await upload(fields, { key })
    expect(status).toBe(422)
    expect(body.error.code).toBe('validation_failed')
    expect(body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(expected)
    expect(server.engine.key(info.id)!.credits).toBe(1)
  })

  it('JSON body: params as an object, typed values', async () => {
    const { status, body } = await uploadJson({
      file_url: 'https://example.com/a.png',
      mode: 'params',
      params: { quality: 'best', size: [1] }
    })
    expect(status).toBe(422)
    expect(body.error.code).toBe('validation_failed')
    expect(body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['params.quality', 'params.size'])
  })

  it('a misspelt second look names the key and the values it takes', async () => {
    const { status, body } = await uploadJson({ file_url: 'https://example.com/a.png', mode: 'clipping', params: { look: 'sometimes' } })
    expect(status).toBe(422)
    expect(body.error.code).toBe('validation_failed')
    expect(body.error.details).toEqual([
      { field: 'params.look', issue: 'expected auto (a second look where the first is doubtful), off or always, got "sometimes"' }
    ])
  })
})

describe('presets over IPC, used by an upload', () => {
  it('saves, lists, uses, and deletes a user preset; errors carry code and details', async () => {
    const ipc = createEngineHandlers(server.engine)
    const saved = await ipc.presetsSave({ name: 'ipc-shop', params: 'marketplace-1600;size=1000x1000', description: 'Shop' })
    expect(saved).toMatchObject({ name: 'ipc-shop', builtin: false, description: 'Shop' })
    expect(saved.params).toContain('size=1000x1000')
    const list = await ipc.presetsList()
    expect(list.filter((p) => p.builtin)).toHaveLength(9)
    expect(list.map((p) => p.name)).toContain('ipc-shop')

    const accepted = await upload({ mode: 'params', params: 'ipc-shop;quality=70' })
    expect(accepted.status).toBe(202)
    // The set is resolved once, at upload: deleting the preset later does not change the job.
    expect(await ipc.presetsDelete('ipc-shop')).toBe(true)
    expect(server.engine.jobParamSet(accepted.body.job_id)).toMatchObject({
      size: { kind: 'box', width: 1000, height: 1000 },
      quality: 70,
      preset: 'ipc-shop'
    })
    server.engine.cancel(accepted.body.job_id)
    expect((await upload({ mode: 'params', params: 'ipc-shop' })).status).toBe(422)

    await expect(ipc.presetsSave({ name: 'x', params: 'size=big' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'params.size' }]
    })
    await expect(ipc.presetsDelete('ecommerce-white')).rejects.toMatchObject({ code: 'validation_failed', details: [{ field: 'name' }] })
    expect(await ipc.presetsDelete('never-saved')).toBe(false)
  })
})

describe('real jobs: every mode and output format reaches done with the documented fields', () => {
  it('background / png / url: the four variations, final_url is compose, no warnings', async () => {
    const body = await runToDone({ mode: 'background' })
    expect(Object.keys(body.final_urls)).toEqual(['clipping', 'background', 'compose', 'shadowTop'])
    expect(body.final_url).toBe(body.final_urls.compose)
    expect(fileOf(body.final_url)).toBe('compose.png')
    expect(body).not.toHaveProperty('warnings')
    expect(body).not.toHaveProperty('ignored_variations')
    const compose = await sharp((await download(body.final_urls.compose)).bytes)
      .raw()
      .toBuffer({ resolveWithObject: true })
    expect([compose.info.width, compose.info.height]).toEqual([SCENE.width, SCENE.height])
    const at = (x: number, y: number) => [...compose.data.subarray((y * SCENE.width + x) * 4, (y * SCENE.width + x) * 4 + 4)]
    expect(at(3, 3)).toEqual([255, 255, 255, 255]) // the gradient became white
    expect(at(SCENE.cx, SCENE.cy)[0]).toBeGreaterThan(150) // the ball stayed red
    const background = await sharp((await download(body.final_urls.background)).bytes).stats()
    expect(background.channels.slice(0, 3).every((c) => c.min === 255)).toBe(true)
    // The shadow darkens the white under the ball's base.
    const shadow = await sharp((await download(body.final_urls.shadowTop)).bytes)
      .raw()
      .toBuffer()
    const base = SCENE.cy + SCENE.ry + 2
    expect(shadow[(base * SCENE.width + SCENE.cx) * 4]!).toBeLessThan(250)
  })

  it('background / jpeg: the transparent clipping is flattened, with a warning naming it', async () => {
    const body = await runToDone({ mode: 'background', output_format: 'jpeg' })
    expect(fileOf(body.final_url)).toBe('compose.jpeg')
    expect(body.warnings).toEqual({ clipping: ['the clipping variation was flattened onto white: jpeg has no transparency'] })
    const meta = await sharp((await download(body.final_urls.clipping)).bytes).metadata()
    expect([meta.format, meta.channels]).toEqual(['jpeg', 3])
  })

  it('params ecommerce-white / psd: layered documents; final_url is shadowTop with Background, Shadow, Subject and its mask', async () => {
    const body = await runToDone({ mode: 'params', params: 'ecommerce-white', output_format: 'psd' })
    expect(Object.keys(body.final_urls)).toEqual(['clipping', 'background', 'compose', 'shadowTop'])
    expect(fileOf(body.final_url)).toBe('shadowTop.psd')
    const { bytes, type } = await download(body.final_url)
    expect(type).toBe('image/vnd.adobe.photoshop')
    const psd = readPsd(bytes, { useImageData: true })
    expect([psd.width, psd.height]).toEqual([2000, 2000])
    expect(psd.children!.map((l) => l.name)).toEqual(['Background', 'Shadow', 'Subject'])
    const subject = psd.children![2]!
    expect(subject.mask?.imageData).toBeDefined()
    expect(subject.mask!.defaultColor).toBe(0)
    // Bottom-centred with a 5 % margin (100 px): the subject layer stands on y = 1900.
    expect(subject.top! + subject.imageData!.height).toBe(1900)
    expect(Math.abs(subject.left! + subject.imageData!.width / 2 - 1000)).toBeLessThanOrEqual(1)
    const clipping = readPsd((await download(body.final_urls.clipping)).bytes, { skipLayerImageData: true, skipCompositeImageData: true })
    expect(clipping.children!.map((l) => l.name)).toEqual(['Subject'])
  })

  it('params social-blur / webp / final_url: only final_url (compose)', async () => {
    const body = await runToDone({ mode: 'params', params: 'social-blur;quality=80', output_format: 'webp', delivery_mode: 'final_url' })
    expect(fileOf(body.final_url)).toBe('compose.webp')
    for (const field of ['final_urls', 'warnings', 'ignored_variations']) expect(body).not.toHaveProperty(field)
    const meta = await sharp((await download(body.final_url)).bytes).metadata()
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 1080, 1080])
  })

  it('clipping + transparent-square / tiff: clipping and mask, the subject centred inside the margins', async () => {
    const body = await runToDone({ mode: 'clipping', params: 'transparent-square', output_format: 'tiff' })
    expect(Object.keys(body.final_urls)).toEqual(['clipping', 'mask'])
    expect(fileOf(body.final_url)).toBe('clipping.tiff')
    const clip = await sharp((await download(body.final_urls.clipping)).bytes)
      .raw()
      .toBuffer({ resolveWithObject: true })
    expect([clip.info.width, clip.info.height, clip.info.channels]).toEqual([2000, 2000, 4])
    const box = alphaBounds(clip.data, 2000, 2000, { stride: 4, offset: 3 })!
    // Scaled to fill 1800 px (5 % margins) on its long side (its soft edge, scaled up, may stay
    // under the subject threshold for a few pixels), centred.
    expect(Math.max(box.width, box.height)).toBeGreaterThanOrEqual(1785)
    expect(Math.max(box.width, box.height)).toBeLessThanOrEqual(1800)
    expect(box.x).toBeGreaterThanOrEqual(99)
    expect(box.y).toBeGreaterThanOrEqual(99)
    expect(Math.abs(box.x + box.width / 2 - 1000)).toBeLessThanOrEqual(2)
    expect(Math.abs(box.y + box.height / 2 - 1000)).toBeLessThanOrEqual(2)
    // 6.9× is a blow-up, and the main file's warnings say so (upscale=allow).
    expect(body.warnings.clipping).toEqual([expect.stringMatching(/^enlarged 6\.9×: the subject/)])
    const mask = await sharp((await download(body.final_urls.mask)).bytes).metadata()
    expect([mask.format, mask.channels]).toEqual(['tiff', 1])
  })

  it('params inline / jpg: a subject hanging from the top edge gets no shadow (ignored, with a warning); primary mask', async () => {
    // The ball cut by the top edge of the photo: it hangs, it does not stand.
    const hanging = await sharp(
      Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300">
        <rect width="100%" height="100%" fill="#e8edf3"/>
        <ellipse cx="200" cy="40" rx="110" ry="120" fill="#d81b0c"/></svg>`)
    )
      .png()
      .toBuffer()
    const params = 'background=#000000;variations=compose,shadowTop,mask,clipping;primary=mask;crop=subject;size=600x600;margin=10%'
    const body = await runToDone({ mode: 'params', params, output_format: 'jpg' }, hanging)
    expect(Object.keys(body.final_urls)).toEqual(['compose', 'mask', 'clipping'])
    expect(body.ignored_variations).toEqual(['shadowTop'])
    expect(body.warnings.shadowTop).toEqual([expect.stringMatching(/^not made: the subject hangs from the top edge/)])
    expect(body.warnings.clipping).toEqual(['the clipping variation was flattened onto white: jpg has no transparency'])
    expect(fileOf(body.final_url)).toBe('mask.jpg')
    const compose = await sharp((await download(body.final_urls.compose)).bytes)
      .raw()
      .toBuffer({ resolveWithObject: true })
    expect([compose.info.width, compose.info.height]).toEqual([600, 600])
    expect([...compose.data.subarray(0, 3)].every((v) => v < 20)).toBe(true) // black background in the corner
  })
})

// Last: no HTTP here, so no idle keep-alive connection of the listener goes stale during the real jobs.
describe('clipdesk presets', () => {
  it('create, list, delete; refuses bad sets with the key named', () => {
    const data = tempDir()
    const created = runCli([
      'presets',
      'create',
      'cli-white',
      'ecommerce-white;size=1200x1200',
      '--description',
      'Web shop',
      '--data-dir',
      data
    ])
    expect(created.code, created.stderr).toBe(0)
    expect(created.stdout).toContain('Created preset cli-white: background=#FFFFFF;shadow=top;crop=subject;size=1200x1200')
    const again = runCli(['presets', 'create', 'cli-white', 'shadow=none', '--data-dir', data])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('--replace')
    expect(runCli(['presets', 'create', 'cli-white', 'shadow=none', '--replace', '--data-dir', data]).stdout).toContain(
      'Replaced preset cli-white: shadow=none'
    )
    const list = runCli(['presets', 'list', '--data-dir', data])
    expect(list.stdout).toContain('ecommerce-white\tE-commerce white\tbuilt-in\t')
    expect(list.stdout).toContain('cli-white\tcli-white\tuser\tshadow=none\tWeb shop')
    const bad = runCli(['presets', 'create', 'other', 'size=0;shadow=left', '--data-dir', data])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('params.size:')
    expect(bad.stderr).toContain('params.shadow:')
    expect(runCli(['presets', 'delete', 'social-blur', '--data-dir', data]).stderr).toContain('built-in')
    expect(runCli(['presets', 'delete', 'cli-white', '--data-dir', data]).code).toBe(0)
    expect(runCli(['presets', 'delete', 'cli-white', '--data-dir', data]).code).toBe(2)
  })
})
