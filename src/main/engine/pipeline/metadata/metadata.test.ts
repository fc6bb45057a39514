/**
 * Metadata through the pipeline (real sharp, real ag-psd): XMP kept without orientation and
 * GPS unless asked, EXIF fields written, nothing with `metadata=strip` but the colour profile.
 */
import { readPsd } from 'ag-psd'
import sharp, { type Metadata } from 'sharp'
import { describe, expect, it } from 'vitest'
import { CLIPPING_DEFAULTS, type JobParams } from '../../../../shared/params-types'
import { iccProfile } from '../decode/decode-psd'
import { jpegWithBlocks } from '../encode/encoded-blocks'
import { encodeImage } from '../encode/encode'
import { outputMetadata, processJob } from '../index'
import type { ExifFields } from './exif-fields'
import { MAX_EXIF_BYTES, MAX_ICC_BYTES, MAX_XMP_BYTES, NO_METADATA, readNative, readSourceMetadata } from './source-info'
import { solidRgba } from '../../../../../test/fixtures/test-fixtures'
import { exifFields } from './exif-fields'
import { cleanXmp } from './xmp-clean'

const MAX = 100_000_000

const XMP = `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:tiff="http://ns.adobe.com/tiff/1.0/"
    xmlns:gps="http://ns.adobe.com/exif/1.0/" tiff:Orientation="6" tiff:Make="Canon" gps:GPSLatitude="51,30.5N">
   <dc:creator><rdf:Seq><rdf:li>Ada &amp; Co</rdf:li></rdf:Seq></dc:creator>
   <gps:GPSLongitude>0,7.7W</gps:GPSLongitude>
   <gps:ExposureTime>1/125</gps:ExposureTime>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`

/** A stand-in model: the left half is the subject. */
const halfSegmenter = {
  segment: async (image: { width: number; height: number }) => {
    const mask = Buffer.alloc(image.width * image.height)
    for (let y = 0; y < image.height; y++) mask.fill(255, y * image.width, y * image.width + (image.width >> 1))
    return mask
  }
}

async function inputWithXmp(): Promise<Buffer> {
  return sharp(solidRgba(16, 8, [90, 140, 200, 255]), { raw: { width: 16, height: 8, channels: 4 } })
    .withXmp(XMP)
    .jpeg()
    .toBuffer()
}

const run = (format: 'png' | 'jpg' | 'webp' | 'tiff' | 'psd', metadata: JobParams['metadata']) =>
  inputWithXmp().then((input) =>
    processJob(input, { segmenter: halfSegmenter }, { format, params: { ...CLIPPING_DEFAULTS, metadata }, maxPixels: MAX })
  )

describe('cleanXmp', () => {
  it('drops the orientation and, unless kept, the GPS position, by namespace whatever the prefix', () => {
    const { withoutGps, withGps } = cleanXmp(XMP)
    for (const kept of [withoutGps!, withGps!]) {
      expect(kept).toContain('<rdf:li>Ada &amp; Co</rdf:li>')
      expect(kept).toContain('tiff:Make="Canon"')
      expect(kept).toContain('<gps:ExposureTime>1/125</gps:ExposureTime>')
      expect(kept).not.toContain('Orientation')
      expect(kept.startsWith('<?xpacket begin=')).toBe(true)
    }
    expect(withoutGps).not.toContain('GPS')
    expect(withGps).toContain('gps:GPSLatitude="51,30.5N"')
    expect(withGps).toContain('<gps:GPSLongitude>0,7.7W</gps:GPSLongitude>')
  })

  it('reads a packet ending with a NUL, as many writers leave it', () => {
    expect(cleanXmp(`${XMP}\0\0`).withGps).toContain('Ada &amp; Co')
  })

  it('drops a packet with a DTD, a broken one and an empty one', () => {
    expect(cleanXmp('<!DOCTYPE x [<!ENTITY a "b">]><x:xmpmeta xmlns:x="adobe:ns:meta/">&a;</x:xmpmeta>').withGps).toBeNull()
    expect(cleanXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"><a></x:xmpmeta>').withGps).toBeNull()
    expect(cleanXmp('').withGps).toBeNull()
  })
})

describe('XMP in outputs', () => {
  it.each(['png', 'jpg', 'webp', 'tiff'] as const)('%s keeps it without orientation and GPS by default', async (format) => {
    const out = (await run(format, 'keep')).outputs[0]!.bytes
    const meta = await sharp(out).metadata()
    const xmp = meta.xmp!.toString('utf8')
    expect(xmp).toContain('Ada &amp; Co')
    expect(xmp).not.toContain('GPS')
    expect(xmp).not.toContain('Orientation')
  })

  it('keeps the GPS position with metadata=keep-gps', async () => {
    const out = (await run('png', 'keep-gps')).outputs[0]!.bytes
    const xmp = (await sharp(out).metadata()).xmp!.toString('utf8')
    expect(xmp).toContain('GPSLatitude="51,30.5N"')
    expect(xmp).not.toContain('Orientation')
  })

  it.each(['png', 'jpg', 'webp', 'tiff'] as const)('%s with metadata=strip has none, but keeps its colour profile', async (format) => {
    const out = (await run(format, 'strip')).outputs[0]!.bytes
    const meta = await sharp(out).metadata()
    expect(meta.xmp).toBeUndefined()
    expect(meta.exif).toBeUndefined()
    expect(meta.icc?.toString('latin1', 16, 20)).toBe('RGB ')
  })

  it('psd carries the XMP and an sRGB profile resource', async () => {
    const out = (await run('psd', 'keep')).outputs[0]!.bytes
    const psd = readPsd(out, { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true })
    expect(psd.imageResources?.xmpMetadata).toContain('Ada &amp; Co')
    expect(psd.imageResources?.xmpMetadata).not.toContain('GPS')
    expect(iccProfile(out)?.toString('latin1', 16, 20)).toBe('RGB ')
    const stripped = (await run('psd', 'strip')).outputs[0]!.bytes
    expect(
      readPsd(stripped, { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true }).imageResources?.xmpMetadata
    ).toBeUndefined()
  })
})

describe('EXIF in outputs', () => {
  const exif: ExifFields = {
    image: { Make: 'Canon', Model: 'EOS R5' },
    photo: { LensModel: 'RF24-70mm F2.8 L IS USM', ExposureTime: '1/125' },
    gps: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 3230/100' }
  }
  const image = { data: solidRgba(8, 8, [10, 20, 30, 255]), width: 8, height: 8, channels: 4 as const }

  it('outputMetadata: the GPS fields only with keep-gps, nothing with strip', () => {
    const source = { ...NO_METADATA, exif, xmp: 'a', xmpWithGps: 'b' }
    expect(outputMetadata(source, 'keep')).toEqual({ xmp: 'a', exif: { ...exif, gps: {} }, iptc: null })
    expect(outputMetadata(source, 'keep-gps')).toEqual({ xmp: 'b', exif, iptc: null })
    expect(outputMetadata(source, 'strip')).toEqual({ xmp: null, exif: null, iptc: null })
  })

  it.each(['png', 'jpg', 'webp'] as const)('%s carries the camera and lens fields, and GPS only when given', async (format) => {
    const kept = outputMetadata({ ...NO_METADATA, exif }, 'keep').exif
    const bytes = (await encodeImage(image, format, { exif: kept })).bytes
    const block = (await sharp(bytes).metadata()).exif!
    for (const text of ['Canon', 'EOS R5', 'RF24-70mm F2.8 L IS USM']) expect(block.includes(text)).toBe(true)
    // The GPS IFD pointer tag (0x8825), in either byte order.
    const gpsPointer = (b: Buffer) => b.includes(Buffer.from([0x88, 0x25, 0x00, 0x04])) || b.includes(Buffer.from([0x25, 0x88, 0x04, 0x00]))
    expect(gpsPointer(block)).toBe(false)
    const withGps = (await sharp((await encodeImage(image, format, { exif })).bytes).metadata()).exif!
    expect(gpsPointer(withGps)).toBe(true)
  })
})

describe('exifFields', () => {
  it('keeps the photo’s fields as writable strings, leaves out the old file’s layout and orientation', () => {
    const fields = exifFields({
      Image: {
        Make: 'Canon\0',
        Model: 'EOS R5',
        Orientation: 6,
        ImageWidth: 8192,
        ExifTag: 240,
        DateTime: new Date(Date.UTC(2023, 4, 20, 17, 2, 0)),
        Artist: ''
      },
      Photo: {
        LensModel: 'RF24-70mm F2.8 L IS USM',
        ExposureTime: 0.008,
        FNumber: 2.8,
        ExifVersion: Buffer.from('0232'),
        MakerNote: Buffer.alloc(900)
      },
      GPSInfo: { GPSLatitudeRef: 'N', GPSLatitude: [51, 30, 32.3], GPSAltitude: Number.NaN }
    })
    expect(fields).toEqual({
      image: { Make: 'Canon', Model: 'EOS R5', DateTime: '2023:05:20 17:02:00' },
      photo: { LensModel: 'RF24-70mm F2.8 L IS USM', ExposureTime: '0.008', FNumber: '2.8' },
      gps: { GPSLatitudeRef: 'N', GPSLatitude: '51 30 32.3' }
    })
    expect(exifFields({ Image: { Orientation: 1 } })).toBeNull()
  })

  it('what it gives, sharp writes: camera, lens and exposure survive a JPEG', async () => {
    const fields = exifFields({ Image: { Make: 'Canon', Model: 'EOS R5' }, Photo: { LensModel: 'RF50mm F1.8 STM', ExposureTime: 0.008 } })!
    const bytes = (await encodeImage({ data: solidRgba(4, 4, [1, 2, 3, 255]), width: 4, height: 4, channels: 4 }, 'jpg', { exif: fields }))
      .bytes
    const block = (await sharp(bytes).metadata()).exif!
    for (const text of ['Canon', 'EOS R5', 'RF50mm F1.8 STM']) expect(block.includes(text)).toBe(true)
  })
})

describe('size limits on untrusted metadata', () => {
  it('an XMP packet over 1 MB and an ICC profile over 4 MB are not kept, with a warning', async () => {
    const xmp = readSourceMetadata({ xmp: Buffer.alloc(MAX_XMP_BYTES + 1, 0x20) })
    expect(xmp.xmp).toBeNull()
    expect(xmp.warnings).toEqual(['metadata: the XMP packet (1024 KB) is over 1 MB and was not kept'])
    const into = readSourceMetadata({})
    const icc = Buffer.alloc(MAX_ICC_BYTES + 1)
    icc.write('RGB ', 16, 'latin1')
    const native = await readNative(Buffer.alloc(0), { icc, depth: 'uchar' } as Metadata, Buffer.alloc(0), { maxPixels: MAX }, into)
    expect(native).toBeNull()
    expect(into.icc).toBeNull()
    expect(into.warnings).toEqual(['metadata: the ICC profile (4096 KB) is too large to keep; the output is in sRGB'])
  })
})

describe('IPTC in outputs', () => {
  /** IPTC-IIM datasets 2:80 (by-line) and 2:116 (copyright notice). */
  const record = Buffer.concat([
    Buffer.from([0x1c, 2, 80, 0, 8]),
    Buffer.from('Ada Photo'.slice(0, 8), 'latin1'),
    Buffer.from([0x1c, 2, 116, 0, 11]),
    Buffer.from('(c) Studio ', 'latin1')
  ])

  async function inputWithIptc(): Promise<Buffer> {
    const jpeg = await sharp(solidRgba(16, 8, [90, 140, 200, 255]), { raw: { width: 16, height: 8, channels: 4 } })
      .jpeg()
      .toBuffer()
    return jpegWithBlocks(jpeg, { iptc: record })
  }

  it('the record is read from the input and written into JPEG and PSD outputs, not with strip', async () => {
    const input = await inputWithIptc()
    expect((await sharp(input).metadata()).iptc!.includes(record)).toBe(true)
    const job = (format: 'jpg' | 'psd' | 'png', metadata: JobParams['metadata']) =>
      processJob(input, { segmenter: halfSegmenter }, { format, params: { ...CLIPPING_DEFAULTS, metadata }, maxPixels: MAX }).then(
        (r) => r.outputs[0]!.bytes
      )
    const jpg = await job('jpg', 'keep')
    expect(readSourceMetadata(await sharp(jpg).metadata()).iptc).toEqual(record)
    expect((await sharp(jpg).metadata()).icc).toBeDefined()
    expect((await sharp(await job('jpg', 'strip')).metadata()).iptc).toBeUndefined()
    expect((await job('psd', 'keep')).includes(record)).toBe(true)
    expect((await job('psd', 'strip')).includes(record)).toBe(false)
    expect((await sharp(await job('png', 'keep')).metadata()).iptc).toBeUndefined()
  })

  it('only resource 1028 of a Photoshop block is kept; a block that is no IPTC is not', () => {
    const thumbnail = Buffer.concat([Buffer.from('8BIM\x04\x0c\0\0', 'latin1'), Buffer.from([0, 0, 0, 3, 1, 2, 3, 0])])
    const irb = Buffer.concat([
      Buffer.from('Photoshop 3.0\0', 'latin1'),
      thumbnail,
      Buffer.from('8BIM\x04\x04\0\0', 'latin1'),
      Buffer.from([0, 0, 0, record.length]),
      record
    ])
    expect(readSourceMetadata({ iptc: irb }).iptc).toEqual(record)
    expect(readSourceMetadata({ iptc: Buffer.from('not iptc') }).iptc).toBeNull()
    expect(readSourceMetadata({ iptc: Buffer.from('Photoshop 3.0\0' + '8BIM', 'latin1') }).iptc).toBeNull()
  })
})

describe('readSourceMetadata: EXIF', () => {
  it('reads a JPEG’s EXIF block into writable fields, orientation left out', async () => {
    const jpg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } })
      .jpeg()
      .withExif({
        IFD0: { Make: 'Nikon', Model: 'Z 8', Orientation: '6' },
        IFD2: { LensModel: 'NIKKOR Z 50mm f/1.8 S' },
        IFD3: { GPSLatitudeRef: 'S' }
      })
      .toBuffer()
    const { exif, warnings } = readSourceMetadata(await sharp(jpg).metadata())
    expect(warnings).toEqual([])
    expect(exif?.image).toMatchObject({ Make: 'Nikon', Model: 'Z 8' })
    expect(exif?.image.Orientation).toBeUndefined()
    expect(exif?.photo.LensModel).toBe('NIKKOR Z 50mm f/1.8 S')
    expect(exif?.gps.GPSLatitudeRef).toBe('S')
  })

  it('drops a block that does not parse, or is too large, with a warning', () => {
    const bad = readSourceMetadata({ exif: Buffer.from('Exif\0\0XX not a tiff header') })
    expect(bad.exif).toBeNull()
    expect(bad.warnings[0]).toMatch(/^metadata: the EXIF block could not be read/)
    const big = readSourceMetadata({ exif: Buffer.alloc(MAX_EXIF_BYTES + 1) })
    expect(big.exif).toBeNull()
    expect(big.warnings[0]).toMatch(/^metadata: the EXIF block \(257 KB\) is over 256 KB/)
  })
})
