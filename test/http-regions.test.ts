/**
 * The upload's look-again boxes (`regions`) through the HTTP API on a real listener: a composite
 * with a large subject and a small one far from it, run by the real model with and without a box
 * around the small one; and every refusal of the field, with its exact status and error.code.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectRefusedUpload, multipart, pollUntilSettled, postUpload, startTestServer, type TestServer } from './helpers/engine'
import { inSmallSubjectBox, SMALL_SUBJECT, smallSubjectPng, smallSubjectScores, tinyPng } from './helpers/fixtures'
import { json } from './helpers/http'

const { width: W, height: H } = SMALL_SUBJECT
const BOX = SMALL_SUBJECT.box

const form = (fields: Record<string, string>, file?: Buffer): FormData =>
  multipart(fields, file && { bytes: file, type: 'image/png', name: 'file.png' })

describe('look-again boxes with the real model', () => {
  let server: TestServer
  let png: Buffer

  beforeAll(async () => {
    server = await startTestServer()
    png = await smallSubjectPng()
  })
  afterAll(() => server.close())

  async function alphaOf(regions?: string): Promise<{ alpha: Buffer; jobId: string; uncertainty: number }> {
    const res = await postUpload(server, form({ output_format: 'png', ...(regions ? { regions } : {}) }, png))
    expect(res.status).toBe(202)
    const jobId = res.body.job_id as string
    const { body } = await pollUntilSettled(server, jobId)
    expect(body.status).toBe('done')
    const bytes = Buffer.from(await (await fetch(body.final_url)).arrayBuffer())
    const { data, info } = await sharp(bytes).ensureAlpha().extractChannel(3).raw().toBuffer({ resolveWithObject: true })
    expect([info.width, info.height]).toEqual([W, H])
    return { alpha: data, jobId, uncertainty: body.uncertainty }
  }

  it('a box around the small subject changes the alpha inside it and leaves every pixel outside it as the job without one', async () => {
    const plain = await alphaOf()
    const looked = await alphaOf(JSON.stringify([BOX]))
    let inside = 0
    let changed = 0
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const i = y * W + x
        if (!inSmallSubjectBox(x, y)) {
          expect(looked.alpha[i]).toBe(plain.alpha[i])
          continue
        }
        inside++
        if (looked.alpha[i] !== plain.alpha[i]) changed++
      }
    // The model, shown the crop, takes the small disc as the subject it missed before.
    const before = smallSubjectScores(plain.alpha)
    const after = smallSubjectScores(looked.alpha)
    expect(before).toBeLessThan(60)
    expect(after).toBeGreaterThan(200)
    expect(changed).toBeGreaterThan(inside * 0.1)
    // The boxes are kept beside the job's upload, fitted to the image.
    expect(JSON.parse(readFileSync(join(server.dataDir, 'uploads', `${looked.jobId}.regions`), 'utf8'))).toEqual([BOX])
    expect(existsSync(join(server.dataDir, 'uploads', `${plain.jobId}.regions`))).toBe(false)
  })
})

describe('refused look-again boxes', () => {
  let server: TestServer
  let file: Buffer

  beforeAll(async () => {
    server = await startTestServer({ run: false })
    file = await tinyPng(64, 48)
  })
  afterAll(() => server.close())

  it('accepts boxes that reach past the image, clipped to it', async () => {
    const res = await postUpload(server, form({ regions: JSON.stringify([{ x: 40, y: 30, width: 100, height: 100 }]) }, file))
    expect(res.status).toBe(202)
    const stored = JSON.parse(readFileSync(join(server.dataDir, 'uploads', `${res.body.job_id}.regions`), 'utf8'))
    expect(stored).toEqual([{ x: 40, y: 30, width: 24, height: 18 }])
  })

  it('text that is not a JSON array of boxes: 422 validation_failed, field regions', async () => {
    const error = await expectRefusedUpload(server, form({ regions: '10,10,20,20' }, file), 422, 'validation_failed', 'regions')
    expect(error.details[0].issue).toMatch(/JSON array/)
    await expectRefusedUpload(
      server,
      form({ regions: JSON.stringify([{ x: 1, y: 1, width: 20 }]) }, file),
      422,
      'validation_failed',
      'regions'
    )
    await expectRefusedUpload(
      server,
      form({ regions: JSON.stringify([{ x: 1, y: 1, width: 20, height: 20, z: 1 }]) }, file),
      422,
      'validation_failed',
      'regions'
    )
    await expectRefusedUpload(
      server,
      form({ regions: JSON.stringify([{ x: -1, y: 1, width: 20, height: 20 }]) }, file),
      422,
      'validation_failed',
      'regions'
    )
  })

  it('more than eight boxes: 422 validation_failed, field regions', async () => {
    const nine = Array.from({ length: 9 }, () => ({ x: 0, y: 0, width: 20, height: 20 }))
    const error = await expectRefusedUpload(server, form({ regions: JSON.stringify(nine) }, file), 422, 'validation_failed', 'regions')
    expect(error.details[0].issue).toMatch(/at most 8/)
  })

  it('a box under 16 pixels on a side: 422 validation_failed, field regions', async () => {
    const error = await expectRefusedUpload(
      server,
      form({ regions: JSON.stringify([{ x: 0, y: 0, width: 4, height: 30 }]) }, file),
      422,
      'validation_failed',
      'regions'
    )
    expect(error.details[0].issue).toMatch(/\[0\]\.width/)
  })

  it('a box outside the image, or keeping under 16 pixels of it: 422 validation_failed, field regions', async () => {
    const error = await expectRefusedUpload(
      server,
      form({ regions: JSON.stringify([{ x: 100, y: 0, width: 20, height: 20 }]) }, file),
      422,
      'validation_failed',
      'regions'
    )
    expect(error.details[0].issue).toMatch(/64×48/)
    await expectRefusedUpload(
      server,
      form(
        {
          regions: JSON.stringify([
            { x: 0, y: 0, width: 20, height: 20 },
            { x: 50, y: 0, width: 20, height: 20 }
          ])
        },
        file
      ),
      422,
      'validation_failed',
      'regions'
    )
  })

  it('boxes covering more than the image between them: 422 validation_failed, field regions', async () => {
    // 64×40 twice on a 64×48 image (overlaps count each time): 5,120 pixels of 3,072.
    const two = [
      { x: 0, y: 0, width: 64, height: 40 },
      { x: 0, y: 8, width: 64, height: 40 }
    ]
    const error = await expectRefusedUpload(server, form({ regions: JSON.stringify(two) }, file), 422, 'validation_failed', 'regions')
    expect(error.details[0].issue).toBe(
      'the boxes cover 5,120 pixels between them, over the 3,072 of the 64×48 image they may cover together (overlaps count each time); use fewer or smaller boxes'
    )
    // Clipped first: a box reaching past the image counts only what lies inside it.
    const res = await postUpload(
      server,
      form(
        {
          regions: JSON.stringify([
            { x: 0, y: 0, width: 32, height: 500 },
            { x: 32, y: 0, width: 500, height: 48 }
          ])
        },
        file
      )
    )
    expect(res.status).toBe(202)
  })

  it('with file_url instead of a file: 422 validation_failed, field regions', async () => {
    await expectRefusedUpload(
      server,
      form({ file_url: 'https://example.com/a.png', regions: JSON.stringify([{ x: 0, y: 0, width: 20, height: 20 }]) }),
      422,
      'validation_failed',
      'regions'
    )
  })

  it('a JSON body whose regions is not text or an array: 400 malformed_request, field regions', async () => {
    const res = await fetch(server.url('/api/v1/upload'), {
      method: 'POST',
      headers: { 'X-API-Key': server.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ file_url: 'https://example.com/a.png', regions: 5 })
    })
    expect(res.status).toBe(400)
    const body = await json(res)
    expect(body.error.code).toBe('malformed_request')
    expect(body.error.details[0].field).toBe('regions')
  })

  it('the OpenAPI document describes the field', async () => {
    const doc = await json(await fetch(server.url('/api/v1/openapi.json')))
    const multipart = doc.paths['/api/v1/upload'].post.requestBody.content['multipart/form-data']
    expect(multipart.schema.properties.regions).toMatchObject({ type: 'string' })
  })
})

describe('credits for look-again boxes', () => {
  let server: TestServer
  let file: Buffer

  beforeAll(async () => {
    server = await startTestServer({ run: false })
    file = await tinyPng(64, 48)
  })
  afterAll(() => server.close())

  const box = (x: number): { x: number; y: number; width: number; height: number } => ({ x, y: 0, width: 16, height: 16 })

  const postAs = (key: string, regions: unknown[]): Promise<{ status: number; body: any }> =>
    postUpload(server, form({ regions: JSON.stringify(regions) }, file), key)

  it('a job is charged 1 credit per box on top of its outputs, in the one charge, and given all of it back when it ends without a result', async () => {
    const { key, info } = server.engine.createKey({ credits: 5 })
    const res = await postAs(key, [box(0), box(16)])
    expect(res.status).toBe(202)
    expect(server.engine.key(info.id)!.credits).toBe(2)
    expect(server.engine.creditsHeldFor(res.body.job_id)).toBe(3)
    expect(server.engine.cancel(res.body.job_id)).toBe(true)
    expect(server.engine.job(res.body.job_id)!.status).toBe('cancelled')
    expect(server.engine.key(info.id)!.credits).toBe(5)
    expect(server.engine.creditsHeldFor(res.body.job_id)).toBe(0)
  })

  it('a box over the whole frame runs nothing and costs nothing', async () => {
    const { key, info } = server.engine.createKey({ credits: 1 })
    const res = await postAs(key, [{ x: 0, y: 0, width: 64, height: 48 }])
    expect(res.status).toBe(202)
    expect(server.engine.key(info.id)!.credits).toBe(0)
  })

  it('a key that cannot pay for the boxes: 402 insufficient_credits naming their cost, no job, nothing charged', async () => {
    const { key, info } = server.engine.createKey({ credits: 2 })
    const before = server.engine.queuedCount()
    const stored = readdirSync(join(server.dataDir, 'uploads'))
    const res = await postAs(key, [box(0), box(16)])
    expect(res.status).toBe(402)
    expect(res.body.error.code).toBe('insufficient_credits')
    expect(res.body.error.message).toBe(
      'This API key has 2 credits left; this job costs 3 credits (1 for its outputs, one per started 100 MP of output, and 2 for its 2 look-again boxes, one each).'
    )
    expect(server.engine.key(info.id)!.credits).toBe(2)
    expect(server.engine.queuedCount()).toBe(before)
    expect(readdirSync(join(server.dataDir, 'uploads'))).toEqual(stored)
    // With one box it can pay: 2 credits, balance 0, never below.
    expect((await postAs(key, [box(0)])).status).toBe(202)
    expect(server.engine.key(info.id)!.credits).toBe(0)
    const broke = await postAs(key, [box(0)])
    expect([broke.status, broke.body.error.code]).toEqual([402, 'insufficient_credits'])
    expect(server.engine.key(info.id)!.credits).toBe(0)
  })
})
