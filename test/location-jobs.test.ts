/**
 * "Location means location": a drone JPEG carrying its position in every place a file can hold
 * one (EXIF GPS IFD, XMP `drone-dji:`, `exif:GPS*` at any depth, `photoshop:City…`,
 * `Iptc4xmpExt:LocationCreated/Shown`, IPTC-IIM 2:90–2:101) and two previews of the uncut photo
 * (EXIF IFD1, `xmp:Thumbnails`), cut out through the HTTP API by a real engine with the real
 * model. The outputs are read back with readers that are not ours: exif-reader for EXIF, the
 * raw bytes (PNG text chunks inflated) for XMP and IPTC text, ImageMagick's `identify -verbose`
 * where it is installed.
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { inflateSync } from 'node:zlib'
import exifReader from 'exif-reader'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { droneJpeg, KEPT_IPTC, KEPT_XMP, KEPT_XMP_NESTED, POSITION_NAMES, POSITION_TEXT, type DroneJpeg } from './helpers/drone-jpeg'
import { multipart, pollUntilSettled, startTestServer, tempDir, type TestServer } from './helpers/engine'
import { json } from './helpers/http'

const HAS_IDENTIFY = spawnSync('identify', ['-version'], { encoding: 'utf8' }).status === 0

let server: TestServer
let drone: DroneJpeg
const dir = tempDir('clipdesk-metadata-')

beforeAll(async () => {
  server = await startTestServer()
  drone = await droneJpeg()
})
afterAll(() => server.close())

/**
 * PNG text chunks, inflated where compressed (libvips writes XMP into a compressed iTXt): read
 * here chunk by chunk, so the search does not depend on our code or on libvips.
 */
function pngTexts(png: Buffer): Buffer[] {
  const texts: Buffer[] = []
  for (let at = 8; at + 12 <= png.length; ) {
    const length = png.readUInt32BE(at)
    const type = png.toString('latin1', at + 4, at + 8)
    const data = png.subarray(at + 8, at + 8 + length)
    if (type === 'iTXt') {
      // keyword\0, compression flag, method, language\0, translated keyword\0, text
      const keyEnd = data.indexOf(0)
      const compressed = data[keyEnd + 1] === 1
      const langEnd = data.indexOf(0, keyEnd + 3)
      const textAt = data.indexOf(0, langEnd + 1) + 1
      texts.push(compressed ? inflateSync(data.subarray(textAt)) : data.subarray(textAt))
    } else if (type === 'zTXt') {
      texts.push(inflateSync(data.subarray(data.indexOf(0) + 2)))
    }
    at += 12 + length
  }
  return texts
}

/** The output's bytes, with its PNG text chunks inflated: what any metadata reader could find. */
const searchable = (out: Buffer, format: string): Buffer => (format === 'png' ? Buffer.concat([out, ...pngTexts(out)]) : out)

async function cutout(format: string, metadata?: string): Promise<Buffer> {
  const fields: Record<string, string> = { mode: 'clipping', output_format: format }
  if (metadata) fields.params = `metadata=${metadata}`
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': server.key },
    body: multipart(fields, { bytes: drone.jpeg, type: 'image/jpeg', name: 'DJI_0042.JPG' })
  })
  const accepted = await json(res)
  expect(res.status, JSON.stringify(accepted)).toBe(202)
  const { body } = await pollUntilSettled(server, accepted.job_id)
  expect(body.status, JSON.stringify(body)).toBe('done')
  return Buffer.from(await (await fetch(body.final_url)).arrayBuffer())
}

/** Every position text and property name found in the raw bytes. */
const positionsIn = (bytes: Buffer): string[] => [...POSITION_TEXT, ...POSITION_NAMES].filter((t) => bytes.includes(t))

/** What `identify -verbose` lists that is a position or a thumbnail (lower-cased lines). */
function identifyPositions(bytes: Buffer, ext: string): string[] {
  const file = join(dir, `out.${ext}`)
  writeFileSync(file, bytes)
  const r = spawnSync('identify', ['-verbose', file], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 })
  expect(r.status, r.stderr).toBe(0)
  // EXIF and XMP properties as `exif:…`/`xmp:…` lines, IPTC datasets as `Name[record,dataset]: value`.
  return r.stdout
    .split('\n')
    .filter((line) => /exif:gps|xmp:gps|thumbnail|latitude|longitude|altitude|\[2,(26|27|90|92|95|100|101)\]/i.test(line))
}

describe('the drone JPEG as given', () => {
  it('carries every position and both previews (the readers do see them)', async () => {
    expect(positionsIn(drone.jpeg)).toEqual([...POSITION_TEXT, ...POSITION_NAMES])
    const exif = exifReader((await sharp(drone.jpeg).metadata()).exif!)
    expect(exif.GPSInfo?.GPSLatitude).toEqual([63, 25, 7.12])
    expect(exif.Thumbnail?.JPEGInterchangeFormatLength).toBe(drone.exifThumbnail.length)
    expect(drone.jpeg.includes(drone.exifThumbnail)).toBe(true)
    expect(drone.jpeg.includes(drone.xmpThumbnailBase64)).toBe(true)
    if (HAS_IDENTIFY) expect(identifyPositions(drone.jpeg, 'jpg').length).toBeGreaterThan(10)
  })
})

describe('metadata=keep (the default): no position and no preview in any output format', () => {
  it.each(['png', 'jpg', 'webp', 'tiff', 'psd'])('%s', async (format) => {
    const out = await cutout(format)
    const bytes = searchable(out, format)
    expect(positionsIn(bytes)).toEqual([])
    expect(out.includes(drone.exifThumbnail)).toBe(false)
    expect(bytes.includes(drone.xmpThumbnailBase64)).toBe(false)
    expect(bytes.includes('Thumbnails')).toBe(false)
    // What is not a position is kept: the XMP (nested structures too), and IPTC where the format holds it.
    expect(bytes.includes(KEPT_XMP)).toBe(true)
    expect(bytes.includes(KEPT_XMP_NESTED)).toBe(true)
    if (format === 'jpg' || format === 'psd') for (const text of KEPT_IPTC) expect(out.includes(text), text).toBe(true)
    if (format === 'png' || format === 'jpg' || format === 'webp') {
      const exif = exifReader((await sharp(out).metadata()).exif!)
      expect(exif.Image?.Make).toBe('DJI')
      expect(exif.GPSInfo).toBeUndefined()
      expect(exif.Image?.GPSTag).toBeUndefined()
      expect(exif.Thumbnail).toBeUndefined()
    } else if (format === 'tiff') {
      expect((await sharp(out).metadata()).exif).toBeUndefined() // libvips writes no EXIF into TIFF
    }
    if (HAS_IDENTIFY) expect(identifyPositions(out, format)).toEqual([])
  })
})

describe('the other settings', () => {
  it('metadata=keep-gps keeps every position (EXIF, XMP, IPTC), still without the previews', async () => {
    const out = await cutout('jpg', 'keep-gps')
    expect(positionsIn(out)).toEqual([...POSITION_TEXT, ...POSITION_NAMES])
    const exif = exifReader((await sharp(out).metadata()).exif!)
    expect(exif.GPSInfo?.GPSLatitude).toEqual([63, 25, 7.12])
    expect(exif.GPSInfo?.GPSAltitude).toBe(121.5)
    expect(exif.Thumbnail).toBeUndefined()
    expect(out.includes(drone.exifThumbnail)).toBe(false)
    expect(out.includes(drone.xmpThumbnailBase64)).toBe(false)
  })

  it('metadata=strip keeps no EXIF, XMP or IPTC at all', async () => {
    const out = await cutout('jpg', 'strip')
    const meta = await sharp(out).metadata()
    expect([meta.exif, meta.xmp, meta.iptc]).toEqual([undefined, undefined, undefined])
    expect(positionsIn(out)).toEqual([])
    expect(out.includes(KEPT_XMP)).toBe(false)
    expect(out.includes(KEPT_IPTC[0]!)).toBe(false)
  })
})
