/**
 * remove.bg's endpoint says a damaged photo in the same plain words as `/api/v1` (shared/explain.ts):
 * a JPEG cut short is "This JPEG is damaged: it ends early…", never the decoder's own text. Real
 * server and decoder; the photo fails before the model runs.
 */
import sharp from 'sharp'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { multipart, pollUntilSettled, startTestServer, type TestServer } from './helpers/engine'
import { scenePng } from './helpers/fixtures'
import { json } from './helpers/http'

let server: TestServer
let cut: Buffer

beforeAll(async () => {
  server = await startTestServer()
  const jpeg = await sharp(await scenePng())
    .jpeg({ quality: 90 })
    .toBuffer()
  cut = jpeg.subarray(0, Math.floor(jpeg.length * 0.6))
})
afterAll(() => server.close())

it('a JPEG cut short: 400 invalid_image in the words /api/v1 gives, not the decoder text', async () => {
  const res = await fetch(server.url('/v1.0/removebg'), {
    method: 'POST',
    headers: { 'X-Api-Key': server.key },
    body: multipart({ size: 'auto' }, { bytes: cut, type: 'image/jpeg', name: 'shoe.jpg', part: 'image_file' })
  })
  expect(res.status).toBe(400)
  const body = await json(res)
  expect(body).toEqual({
    errors: [{ title: 'Invalid image', code: 'invalid_image', detail: 'This JPEG is damaged: it ends early (the file was cut short)' }]
  })
  // The same words as the job's status on /api/v1.
  const api = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': server.key },
    body: multipart({}, { bytes: cut, type: 'image/jpeg' })
  })
  const { body: status } = await pollUntilSettled(server, (await json(api)).job_id)
  expect(status.error.message).toBe(body.errors[0].detail)
})
