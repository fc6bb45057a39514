/**
 * Colour, depth and metadata of outputs through the HTTP API: a real engine (its decode
 * sandbox converts colours into the input's profile), the real model in one job.
 */
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withIccChunk } from '../src/main/engine/pipeline/decode/decode-psd'
import { matrixProfile } from './fixtures/icc-fixtures'
import { multipart, pollUntilSettled, startTestServer, type TestServer } from './helpers/engine'
import { SCENE, sceneSvg } from './helpers/fixtures'
import { json } from './helpers/http'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

const XMP = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="51,30.5N">
<dc:rights><rdf:Alt><rdf:li xml:lang="x-default">Studio Nord</rdf:li></rdf:Alt></dc:rights></rdf:Description></rdf:RDF></x:xmpmeta>`

async function upload(fields: Record<string, string>, image: Buffer) {
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': server.key },
    body: multipart(fields, { bytes: image, type: 'image/png', name: 'scene.png' })
  })
  return { status: res.status, body: await json(res) }
}

describe('the metadata key', () => {
  it.each([
    ['inline', 'metadata=all'],
    ['JSON', '{"metadata": 5}']
  ])('a bad value (%s) is refused with 422 naming params.metadata', async (_form, params) => {
    const { status, body } = await upload(
      { mode: 'params', params },
      await sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } })
        .png()
        .toBuffer()
    )
    expect(status).toBe(422)
    expect(body.error.code).toBe('validation_failed')
    expect(body.error.details.map((d: { field: string }) => d.field)).toEqual(['params.metadata'])
    expect(body.error.details[0].issue).toContain('keep, keep-gps or strip')
  })
})

describe('a 16-bit Adobe RGB input with XMP', () => {
  const icc = matrixProfile()
  /** The scene's numbers taken as Adobe RGB, widened to 16 bits with an offset no 8-bit value has. */
  async function input(): Promise<{ png: Buffer; words: Uint16Array }> {
    const rgb = await sharp(sceneSvg()).removeAlpha().raw().toBuffer()
    const words = new Uint16Array(rgb.length)
    for (let i = 0; i < rgb.length; i++) words[i] = Math.min(65535, rgb[i]! * 257 + 100)
    const png = await sharp(words, { raw: { width: SCENE.width, height: SCENE.height, channels: 3 } })
      .toColourspace('rgb16')
      .withXmp(XMP)
      .png()
      .toBuffer()
    return { png: withIccChunk(png, icc), words }
  }

  it('gives a 16-bit PNG tagged with its profile, its own values inside the subject, its XMP without GPS', async () => {
    const { png, words } = await input()
    const accepted = await upload({ mode: 'clipping' }, png)
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const { body } = await pollUntilSettled(server, accepted.body.job_id)
    expect(body.status, JSON.stringify(body)).toBe('done')
    const res = await fetch(body.final_url)
    const out = Buffer.from(await res.arrayBuffer())
    const meta = await sharp(out).metadata()
    expect(meta.depth).toBe('ushort')
    expect(meta.icc && Buffer.compare(meta.icc, icc)).toBe(0)
    const xmp = meta.xmp!.toString('utf8')
    expect(xmp).toContain('Studio Nord')
    expect(xmp).not.toContain('GPS')
    const raw = await sharp(out, { ignoreIcc: true }).toColourspace('rgb16').raw({ depth: 'ushort' }).toBuffer()
    const px = new Uint16Array(raw.buffer, raw.byteOffset, raw.length / 2)
    const centre = SCENE.cy * SCENE.width + SCENE.cx
    expect([...px.subarray(centre * 4, centre * 4 + 4)]).toEqual([...words.subarray(centre * 3, centre * 3 + 3), 65535])
    expect(px[3]).toBe(0) // a corner is background
  })
})

describe('a camera JPEG with EXIF', () => {
  /** The scene as a camera would write it: make, model and lens, exposure, and a GPS position. */
  async function cameraJpeg(): Promise<Buffer> {
    return sharp(sceneSvg())
      .jpeg()
      .withExif({
        IFD0: { Make: 'Canon', Model: 'EOS R5', Copyright: 'Studio Nord' },
        IFD2: { LensModel: 'RF24-70mm F2.8 L IS USM', ExposureTime: '1/125' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 3230/100' }
      })
      .toBuffer()
  }
  // The GPS IFD pointer tag (0x8825), in either byte order.
  const gpsPointer = (b: Buffer) => b.includes(Buffer.from([0x88, 0x25, 0x00, 0x04])) || b.includes(Buffer.from([0x25, 0x88, 0x04, 0x00]))

  it.each(['png', 'jpg'])('%s output keeps camera and lens, drops the GPS position', async (format) => {
    const input = await cameraJpeg()
    expect(gpsPointer((await sharp(input).metadata()).exif!)).toBe(true)
    const res = await fetch(server.url('/api/v1/upload'), {
      method: 'POST',
      headers: { 'X-API-Key': server.key },
      body: multipart({ mode: 'clipping', output_format: format }, { bytes: input, type: 'image/jpeg', name: 'camera.jpg' })
    })
    const accepted = { status: res.status, body: await json(res) }
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const { body } = await pollUntilSettled(server, accepted.body.job_id)
    expect(body.status, JSON.stringify(body)).toBe('done')
    const out = Buffer.from(await (await fetch(body.final_url)).arrayBuffer())
    const exif = (await sharp(out).metadata()).exif!
    for (const text of ['Canon', 'EOS R5', 'Studio Nord', 'RF24-70mm F2.8 L IS USM']) expect(exif.includes(text), text).toBe(true)
    expect(gpsPointer(exif)).toBe(false)
  })
})
