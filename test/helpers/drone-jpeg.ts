/**
 * A JPEG as a drone (or a photo library after it) writes one, built byte by byte so that every
 * place a position or a preview of the photo can hide is there:
 *
 * - EXIF: camera fields, a GPS IFD (latitude, longitude, altitude) and an IFD1 thumbnail (a
 *   JPEG of its own);
 * - XMP: `drone-dji:` telemetry, `exif:GPS*` at the top and nested inside a kept structure,
 *   `photoshop:City/State/Country`, `Iptc4xmpCore:Location/CountryCode`,
 *   `Iptc4xmpExt:LocationCreated/LocationShown`, `xmp:Thumbnails` with a base64 JPEG;
 * - IPTC-IIM: city, sub-location, province, country code and name (2:90, 2:92, 2:95, 2:100,
 *   2:101), beside a by-line and a copyright that must survive.
 *
 * Every value is a sentinel string long enough to search for in an output's raw bytes.
 */
import sharp from 'sharp'
import { jpegWithBlocks } from '../../src/main/engine/pipeline/encode/encoded-blocks'
import { sceneSvg } from './fixtures'

/** Text of properties that say where the photo was taken: none may reach a `metadata=keep` output. */
export const POSITION_TEXT = [
  '63.4186111', // drone-dji:GpsLatitude
  '-19.0069444', // drone-dji:GpsLongitude
  '+121.537', // drone-dji:AbsoluteAltitude
  '+80.2011', // drone-dji:RelativeAltitude
  '63,25.1166N', // exif:GPSLatitude (top level)
  '19,0.4166W', // exif:GPSLongitude (inside LocationCreated)
  '1215/10', // exif:GPSAltitude (nested in a kept ArtworkOrObject)
  'Vikurkauptun-XMP', // photoshop:City
  'Sudurland-XMP', // photoshop:State
  'Icelandia-XMP', // photoshop:Country
  'Reynisfjara-XMP', // Iptc4xmpCore:Location
  'Reynisdrangar-Shown', // Iptc4xmpExt:LocationShown
  'Vikurkauptun-IIM', // 2:90
  'Reynisfjara-IIM', // 2:92
  'Sudurland-IIM', // 2:95
  'ISL-IIM-code', // 2:100
  'Iceland-IIM-name' // 2:101
]
/** Property names that mean a position, as they appear in XMP (raw search). */
export const POSITION_NAMES = [
  'GpsLatitude',
  'GpsLongitude',
  'AbsoluteAltitude',
  'RelativeAltitude',
  'GPSLatitude',
  'GPSLongitude',
  'GPSAltitude',
  'photoshop:City',
  'LocationCreated',
  'LocationShown',
  'Iptc4xmpCore:Location'
]
/** Text that must survive `metadata=keep`: proves the readers do see the metadata that is there. */
export const KEPT_XMP = 'Studio Nord XMP rights'
export const KEPT_XMP_NESTED = 'Basalt columns title'
export const KEPT_IPTC = ['Ada Lovelace-IIM', 'Studio Nord-IIM copyright']

export interface DroneJpeg {
  jpeg: Buffer
  /** The EXIF IFD1 thumbnail's bytes. */
  exifThumbnail: Buffer
  /** The start of the `xmp:Thumbnails` image's base64. */
  xmpThumbnailBase64: string
}

type Entry = { tag: number; type: 'byte' | 'ascii' | 'short' | 'long' | 'rational'; value: number[] | string }
const TYPE = { byte: [1, 1], ascii: [2, 1], short: [3, 2], long: [4, 4], rational: [5, 8] } as const

/** Big-endian TIFF bytes of `ifds` laid out one after the other (each followed by its values), then `tail`. */
function tiff(ifds: Entry[][], link: (offsets: number[], tailAt: number) => void, tail: Buffer): Buffer {
  const valueBytes = (e: Entry): number =>
    e.type === 'ascii' ? (e.value as string).length + 1 : (e.value as number[]).length * TYPE[e.type][1]
  const sizes = ifds.map(
    (entries) => 2 + entries.length * 12 + 4 + entries.reduce((n, e) => n + (valueBytes(e) > 4 ? (valueBytes(e) + 1) & ~1 : 0), 0)
  )
  const offsets: number[] = []
  let at = 8
  for (const size of sizes) {
    offsets.push(at)
    at += size
  }
  link(offsets, at)
  const out = Buffer.alloc(at + tail.length)
  out.write('MM', 0, 'latin1')
  out.writeUInt16BE(42, 2)
  out.writeUInt32BE(8, 4)
  ifds.forEach((entries, i) => {
    let p = offsets[i]!
    let data = p + 2 + entries.length * 12 + 4
    out.writeUInt16BE(entries.length, p)
    p += 2
    for (const e of entries) {
      const bytes = Buffer.alloc(valueBytes(e))
      if (e.type === 'ascii') bytes.write(e.value as string, 0, 'latin1')
      else
        for (const [j, v] of (e.value as number[]).entries()) {
          if (e.type === 'byte') bytes.writeUInt8(v, j)
          else if (e.type === 'short') bytes.writeUInt16BE(v, j * 2)
          else bytes.writeUInt32BE(v, j * 4)
        }
      out.writeUInt16BE(e.tag, p)
      out.writeUInt16BE(TYPE[e.type][0], p + 2)
      out.writeUInt32BE(e.type === 'ascii' ? bytes.length : (e.value as number[]).length / (e.type === 'rational' ? 2 : 1), p + 4)
      if (bytes.length <= 4) bytes.copy(out, p + 8)
      else {
        out.writeUInt32BE(data, p + 8)
        bytes.copy(out, data)
        data += (bytes.length + 1) & ~1
      }
      p += 12
    }
    // The next-IFD link: IFD0 → IFD1 (the thumbnail's directory), the others end the chain.
    out.writeUInt32BE(i === 0 ? offsets[3]! : 0, p)
  })
  tail.copy(out, at)
  return out
}

function exifBlock(thumbnail: Buffer): Buffer {
  const ifd0: Entry[] = [
    { tag: 0x010f, type: 'ascii', value: 'DJI' },
    { tag: 0x0110, type: 'ascii', value: 'FC3582' },
    { tag: 0x8769, type: 'long', value: [0] }, // Exif IFD, linked below
    { tag: 0x8825, type: 'long', value: [0] } // GPS IFD, linked below
  ]
  const exif: Entry[] = [
    { tag: 0x829a, type: 'rational', value: [1, 500] },
    { tag: 0x829d, type: 'rational', value: [28, 10] }
  ]
  const gps: Entry[] = [
    { tag: 0x0000, type: 'byte', value: [2, 3, 0, 0] },
    { tag: 0x0001, type: 'ascii', value: 'N' },
    { tag: 0x0002, type: 'rational', value: [63, 1, 25, 1, 712, 100] },
    { tag: 0x0003, type: 'ascii', value: 'W' },
    { tag: 0x0004, type: 'rational', value: [19, 1, 0, 1, 2500, 100] },
    { tag: 0x0005, type: 'byte', value: [0] },
    { tag: 0x0006, type: 'rational', value: [1215, 10] }
  ]
  const ifd1: Entry[] = [
    { tag: 0x0103, type: 'short', value: [6] },
    { tag: 0x0201, type: 'long', value: [0] }, // the thumbnail's offset, linked below
    { tag: 0x0202, type: 'long', value: [thumbnail.length] }
  ]
  const body = tiff(
    [ifd0, exif, gps, ifd1],
    (offsets, tailAt) => {
      ifd0[2]!.value = [offsets[1]!]
      ifd0[3]!.value = [offsets[2]!]
      ifd1[1]!.value = [tailAt]
    },
    thumbnail
  )
  return Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), body])
}

function xmpPacket(thumbnailBase64: string): string {
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about=""
  xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:exif="http://ns.adobe.com/exif/1.0/"
  xmlns:drone-dji="http://www.dji.com/drone-dji/1.0/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
  xmlns:Iptc4xmpCore="http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"
  xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:xmpGImg="http://ns.adobe.com/xap/1.0/g/img/"
  drone-dji:GpsLatitude="63.4186111" drone-dji:GpsLongitude="-19.0069444" drone-dji:AbsoluteAltitude="+121.537"
  drone-dji:RelativeAltitude="+80.2011" drone-dji:GimbalYawDegree="-90.0"
  photoshop:City="Vikurkauptun-XMP" photoshop:State="Sudurland-XMP" photoshop:Country="Icelandia-XMP"
  Iptc4xmpCore:Location="Reynisfjara-XMP" Iptc4xmpCore:CountryCode="IS" xmp:CreatorTool="DJI FC3582 tool">
 <dc:rights><rdf:Alt><rdf:li xml:lang="x-default">${KEPT_XMP}</rdf:li></rdf:Alt></dc:rights>
 <exif:GPSLatitude>63,25.1166N</exif:GPSLatitude>
 <Iptc4xmpExt:LocationCreated><rdf:Bag><rdf:li rdf:parseType="Resource">
  <Iptc4xmpExt:City>Vikurkauptun-XMP</Iptc4xmpExt:City><exif:GPSLongitude>19,0.4166W</exif:GPSLongitude>
 </rdf:li></rdf:Bag></Iptc4xmpExt:LocationCreated>
 <Iptc4xmpExt:LocationShown><rdf:Bag><rdf:li rdf:parseType="Resource"><Iptc4xmpExt:Sublocation>Reynisdrangar-Shown</Iptc4xmpExt:Sublocation></rdf:li></rdf:Bag></Iptc4xmpExt:LocationShown>
 <Iptc4xmpExt:ArtworkOrObject><rdf:Bag><rdf:li rdf:parseType="Resource">
  <Iptc4xmpExt:AOTitle><rdf:Alt><rdf:li xml:lang="x-default">${KEPT_XMP_NESTED}</rdf:li></rdf:Alt></Iptc4xmpExt:AOTitle>
  <exif:GPSAltitude>1215/10</exif:GPSAltitude>
 </rdf:li></rdf:Bag></Iptc4xmpExt:ArtworkOrObject>
 <xmp:Thumbnails><rdf:Alt><rdf:li rdf:parseType="Resource">
  <xmpGImg:format>JPEG</xmpGImg:format><xmpGImg:width>64</xmpGImg:width><xmpGImg:height>48</xmpGImg:height>
  <xmpGImg:image>${thumbnailBase64}</xmpGImg:image>
 </rdf:li></rdf:Alt></xmp:Thumbnails>
</rdf:Description></rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>`
}

/** One IPTC-IIM dataset (standard length form). */
function dataset(record: number, number: number, text: string): Buffer {
  const value = Buffer.from(text, 'utf8')
  const head = Buffer.from([0x1c, record, number, 0, 0])
  head.writeUInt16BE(value.length, 3)
  return Buffer.concat([head, value])
}

export function iptcRecord(): Buffer {
  return Buffer.concat([
    dataset(1, 90, '\x1b%G'), // envelope: UTF-8
    dataset(2, 80, KEPT_IPTC[0]!),
    dataset(2, 90, 'Vikurkauptun-IIM'),
    dataset(2, 92, 'Reynisfjara-IIM'),
    dataset(2, 95, 'Sudurland-IIM'),
    dataset(2, 100, 'ISL-IIM-code'),
    dataset(2, 101, 'Iceland-IIM-name'),
    dataset(2, 116, KEPT_IPTC[1]!)
  ])
}

/** An APP1 segment of `body` led by `marker`. */
function app1(marker: string, body: Buffer): Buffer {
  const head = Buffer.alloc(4)
  head.writeUInt16BE(0xffe1, 0)
  head.writeUInt16BE(2 + marker.length + body.length, 2)
  return Buffer.concat([head, Buffer.from(marker, 'latin1'), body])
}

export async function droneJpeg(): Promise<DroneJpeg> {
  // The thumbnail shows the whole uncut photo, background included: a distinctive pattern.
  const exifThumbnail = await sharp(sceneSvg()).resize(64, 48).jpeg({ quality: 77 }).toBuffer()
  const xmpThumbnail = await sharp(sceneSvg()).resize(64, 48).jpeg({ quality: 63 }).toBuffer()
  const xmpThumbnailBase64 = xmpThumbnail.toString('base64')
  const plain = await sharp(sceneSvg()).jpeg({ quality: 90 }).toBuffer()
  // EXIF and XMP in APP1 segments right after SOI (and JFIF's APP0), where readers look for them.
  const exif = app1('', exifBlock(exifThumbnail))
  const xmp = app1('http://ns.adobe.com/xap/1.0/\0', Buffer.from(xmpPacket(xmpThumbnailBase64), 'utf8'))
  const at = plain[2] === 0xff && plain[3] === 0xe0 ? 4 + plain.readUInt16BE(4) : 2 // after JFIF's APP0
  const withApp1 = Buffer.concat([plain.subarray(0, at), exif, xmp, plain.subarray(at)])
  return { jpeg: jpegWithBlocks(withApp1, { iptc: iptcRecord() }), exifThumbnail, xmpThumbnailBase64: xmpThumbnailBase64.slice(0, 120) }
}
