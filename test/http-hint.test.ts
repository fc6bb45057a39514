/**
 * The upload's `hint` part through the HTTP API on a real listener: a composite (a ball on a
 * gradient) with a background rectangle marked keep and a subject rectangle marked remove, run
 * by the real model; and every refusal of a hint, with its exact status and error.code.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hintBand, strokeBand } from '../src/main/engine/pipeline/guide/hint'
import { expectRefusedUpload, pollUntilSettled, postUpload, startTestServer, type TestServer } from './helpers/engine'
import { SCENE, scenePng, tinyPng } from './helpers/fixtures'
import { json } from './helpers/http'

const { width, height } = SCENE
/** A background rectangle (right of the ball) and a subject rectangle (its middle): [x, y, w, h]. */
const KEEP = [420, 30, 60, 60] as const
const REMOVE = [200, 160, 60, 60] as const

/** A hint PNG: mid grey, with the keep rectangle white and the remove one black. */
async function hintPng(w: number = width, h: number = height): Promise<Buffer> {
  const grey = Buffer.alloc(w * h, 128)
  for (const [[x0, y0, rw, rh], v] of [
    [KEEP, 255],
    [REMOVE, 0]
  ] as const)
    for (let y = y0; y < y0 + rh && y < h; y++) grey.fill(v, y * w + x0, y * w + Math.min(w, x0 + rw))
  return sharp(grey, { raw: { width: w, height: h, channels: 1 } })
    .png()
    .toBuffer()
}

function form(fields: Record<string, string>, parts: Array<{ name: string; bytes: Buffer; type?: string }>): FormData {
  const f = new FormData()
  for (const [k, v] of Object.entries(fields)) f.append(k, v)
  for (const p of parts) f.append(p.name, new Blob([new Uint8Array(p.bytes)], { type: p.type ?? 'image/png' }), `${p.name}.png`)
  return f
}

describe('a hinted job with the real model', () => {
  let server: TestServer
  let png: Buffer

  beforeAll(async () => {
    server = await startTestServer()
    png = await scenePng()
  })
  afterAll(() => server.close())

  /** Runs a PNG clipping job, with or without the hint; its alpha as decoded from the result. */
  async function alphaOf(hint?: Buffer): Promise<{ alpha: Buffer; jobId: string }> {
    const parts = [{ name: 'file', bytes: png }, ...(hint ? [{ name: 'hint', bytes: hint }] : [])]
    const res = await postUpload(server, form({ output_format: 'png' }, parts))
    expect(res.status).toBe(202)
    const jobId = res.body.job_id as string
    const { body } = await pollUntilSettled(server, jobId)
    expect(body.status).toBe('done')
    const bytes = Buffer.from(await (await fetch(body.final_url)).arrayBuffer())
    const { data, info } = await sharp(bytes).ensureAlpha().extractChannel(3).raw().toBuffer({ resolveWithObject: true })
    expect([info.width, info.height]).toEqual([width, height])
    return { alpha: data, jobId }
  }

  it('keep ≥ 0.9 and remove ≤ 0.1 on the strokes; beyond a band of them, the alpha of the job without a hint', async () => {
    const hint = await hintPng()
    const plain = await alphaOf()
    const hinted = await alphaOf(hint)
    // The same image again without a hint: the mask cache still holds the model's own mask.
    const again = await alphaOf()
    expect(again.alpha.equals(plain.alpha)).toBe(true)

    const grey = await sharp(hint).extractChannel(0).raw().toBuffer()
    const near = strokeBand({ data: grey, width, height }, hintBand(width, height))
    const inRect = (i: number, [x0, y0, w, h]: readonly number[]) => {
      const x = i % width
      const y = Math.floor(i / width)
      return x >= x0! && x < x0! + w! && y >= y0! && y < y0! + h!
    }
    let keepBefore = 0
    let removeBefore = 0
    let beyond = 0
    for (let i = 0; i < width * height; i++) {
      if (inRect(i, KEEP)) {
        expect(hinted.alpha[i]).toBeGreaterThanOrEqual(230)
        keepBefore += plain.alpha[i]!
      } else if (inRect(i, REMOVE)) {
        expect(hinted.alpha[i]).toBeLessThanOrEqual(25)
        removeBefore += plain.alpha[i]!
      } else if (!near[i]) {
        expect(hinted.alpha[i]).toBe(plain.alpha[i])
        beyond++
      }
    }
    // The hint changed something: the model had the kept rectangle as background and the removed one as subject.
    expect(keepBefore / (KEEP[2] * KEEP[3])).toBeLessThan(25)
    expect(removeBefore / (REMOVE[2] * REMOVE[3])).toBeGreaterThan(230)
    expect(beyond).toBeGreaterThan(width * height * 0.6)
    // The hint is stored beside the upload of its job only.
    expect(existsSync(join(server.dataDir, 'uploads', `${hinted.jobId}.hint`))).toBe(true)
    expect(existsSync(join(server.dataDir, 'uploads', `${plain.jobId}.hint`))).toBe(false)
  })

  it("retention removes a job's hint with its upload", async () => {
    const res = await postUpload(
      server,
      form({ output_format: 'png' }, [
        { name: 'file', bytes: await tinyPng(16, 12) },
        { name: 'hint', bytes: await hintPng(16, 12) }
      ])
    )
    expect(res.status).toBe(202)
    const jobId = res.body.job_id as string
    expect((await pollUntilSettled(server, jobId)).body.state).not.toBe('pending')
    expect(existsSync(join(server.dataDir, 'uploads', `${jobId}.hint`))).toBe(true)
    server.engine.sweep(Date.now() + 365 * 24 * 3600_000)
    expect(existsSync(join(server.dataDir, 'uploads', `${jobId}.hint`))).toBe(false)
    expect(existsSync(join(server.dataDir, 'uploads', jobId))).toBe(false)
  })
})

describe('refused hints', () => {
  const LIMIT = 64 * 1024
  let server: TestServer
  let file: Buffer

  beforeAll(async () => {
    server = await startTestServer({ run: false, maxUploadBytes: LIMIT })
    file = await tinyPng(16, 12)
  })
  afterAll(() => server.close())

  it("accepts a hint of the image's size (grey everywhere: the model decides)", async () => {
    const res = await postUpload(
      server,
      form({}, [
        { name: 'file', bytes: file },
        { name: 'hint', bytes: await hintPng(16, 12) }
      ])
    )
    expect(res.status).toBe(202)
    expect(existsSync(join(server.dataDir, 'uploads', `${res.body.job_id}.hint`))).toBe(true)
  })

  it('bytes that are not an image: 422 validation_failed, field hint (the declared type is not trusted)', async () => {
    const error = await expectRefusedUpload(
      server,
      form({}, [
        { name: 'file', bytes: file },
        { name: 'hint', bytes: Buffer.from('not an image at all'), type: 'image/png' }
      ]),
      422,
      'validation_failed',
      'hint'
    )
    expect(error.details[0].issue).toMatch(/not a PNG, JPEG or WebP/)
  })

  it('an image of a type a hint may not be (GIF): 422 validation_failed, field hint', async () => {
    const gif = await sharp({ create: { width: 16, height: 12, channels: 3, background: '#fff' } })
      .gif()
      .toBuffer()
    await expectRefusedUpload(
      server,
      form({}, [
        { name: 'file', bytes: file },
        { name: 'hint', bytes: gif, type: 'image/gif' }
      ]),
      422,
      'validation_failed',
      'hint'
    )
  })

  it('a PNG whose header is damaged: 422 validation_failed, field hint', async () => {
    const broken = Buffer.concat([(await hintPng(16, 12)).subarray(0, 8), Buffer.alloc(40)])
    await expectRefusedUpload(
      server,
      form({}, [
        { name: 'file', bytes: file },
        { name: 'hint', bytes: broken }
      ]),
      422,
      'validation_failed',
      'hint'
    )
  })

  it("another size than the image's: 422 validation_failed, field hint, both sizes said", async () => {
    const error = await expectRefusedUpload(
      server,
      form({}, [
        { name: 'file', bytes: file },
        { name: 'hint', bytes: await hintPng(12, 16) }
      ]),
      422,
      'validation_failed',
      'hint'
    )
    expect(error.details[0].issue).toMatch(/12×16.*16×12/)
  })

  it('over the upload limit: 413 payload_too_large, field hint', async () => {
    const big = Buffer.concat([await hintPng(16, 12), Buffer.alloc(LIMIT + 1)])
    await expectRefusedUpload(
      server,
      form({}, [
        { name: 'file', bytes: file },
        { name: 'hint', bytes: big }
      ]),
      413,
      'payload_too_large',
      'hint'
    )
  })

  it('with file_url instead of a file: 422 validation_failed, field hint', async () => {
    await expectRefusedUpload(
      server,
      form({ file_url: 'https://example.com/a.png' }, [{ name: 'hint', bytes: await hintPng(16, 12) }]),
      422,
      'validation_failed',
      'hint'
    )
  })

  it('a hint sent as a text part: 422 validation_failed, field hint (it is a file part)', async () => {
    const body = form({ hint: 'white' }, [{ name: 'file', bytes: file }])
    const error = await expectRefusedUpload(server, body, 422, 'validation_failed', 'hint')
    expect(error.details[0].issue).toBe('unknown field')
  })

  it('the OpenAPI document describes the hint part', async () => {
    const doc = await json(await fetch(server.url('/api/v1/openapi.json')))
    const multipart = doc.paths['/api/v1/upload'].post.requestBody.content['multipart/form-data']
    expect(multipart.schema.properties.hint).toMatchObject({ type: 'string', contentMediaType: 'application/octet-stream' })
    expect(multipart.encoding.hint.contentType).toBe('image/png, image/jpeg, image/webp')
  })

  it('two hint parts: 400 malformed_request', async () => {
    const hint = await hintPng(16, 12)
    await expectRefusedUpload(
      server,
      form({}, [
        { name: 'file', bytes: file },
        { name: 'hint', bytes: hint },
        { name: 'hint', bytes: hint }
      ]),
      400,
      'malformed_request'
    )
  })
})
