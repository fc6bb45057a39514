/**
 * What counts as a position or a preview of the original in XMP and IPTC-IIM (the rules of
 * docs/pipeline.md, "Metadata"), property by property. The whole path through the HTTP API,
 * in every output format, is test/location-jobs.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { CLIPPING_DEFAULTS } from '../../../../shared/params-types'
import { outputMetadata } from '../index'
import { cleanIptc } from './iptc-clean'
import { readSourceMetadata } from './source-info'
import { cleanXmp } from './xmp-clean'

/** A packet with one rdf:Description holding `body` (elements) and `attrs`, with the namespaces bound to unusual prefixes. */
function packet(body: string, attrs = ''): string {
  return `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:e="http://ns.adobe.com/exif/1.0/"
 xmlns:ex="http://cipa.jp/exif/1.0/" xmlns:dji="http://www.dji.com/drone-dji/1.0/" xmlns:parrot="http://www.parrot.com/drone-parrot/1.0/"
 xmlns:ps="http://ns.adobe.com/photoshop/1.0/" xmlns:core="http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/"
 xmlns:ext="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" xmlns:xap="http://ns.adobe.com/xap/1.0/" xmlns:img="http://ns.adobe.com/xap/1.0/g/img/"
 xmlns:gimage="http://ns.google.com/photos/1.0/image/" xmlns:pix4d="http://pix4d.com/camera/1.0/" xmlns:dm="http://ns.adobe.com/xmp/1.0/DynamicMedia/"
 ${attrs}><dc:title><rdf:Alt><rdf:li xml:lang="x-default">kept title</rdf:li></rdf:Alt></dc:title>${body}</rdf:Description></rdf:RDF></x:xmpmeta>`
}

const cases: Array<[string, string, string]> = [
  ['exif:GPS* with another prefix', '<e:GPSLatitude>51,30N</e:GPSLatitude>', 'e:GPSLatitude="51,30N"'],
  ['CIPA exifEX GPS', '<ex:GPSHPositioningError>5</ex:GPSHPositioningError>', 'ex:GPSHPositioningError="5"'],
  ['DJI telemetry, even the attitude', '<dji:GimbalYawDegree>-90</dji:GimbalYawDegree>', 'dji:GpsLongtitude="-19.0"'],
  ['Parrot telemetry', '<parrot:CameraPitchDegree>-30</parrot:CameraPitchDegree>', 'parrot:AltitudeAboveGround="12"'],
  ['Pix4D GPS accuracy', '<pix4d:GPSXYAccuracy>0.5</pix4d:GPSXYAccuracy>', 'pix4d:GPSZAccuracy="0.9"'],
  ['photoshop:City/State/Country', '<ps:Country>Iceland</ps:Country>', 'ps:City="Vik" ps:State="Sudurland"'],
  ['Iptc4xmpCore:Location and CountryCode', '<core:Location>Reynisfjara</core:Location>', 'core:CountryCode="IS"'],
  [
    'Iptc4xmpExt:LocationCreated/LocationShown',
    '<ext:LocationShown><rdf:Bag><rdf:li rdf:parseType="Resource"><ext:City>Vik</ext:City></rdf:li></rdf:Bag></ext:LocationShown>',
    ''
  ],
  ['a position field alone in the extension schema', '<ext:ProvinceState>Sudurland</ext:ProvinceState>', 'ext:Sublocation="Reynisfjara"'],
  ['a shot location in another schema', '<dm:shotLocation>beach</dm:shotLocation>', '']
]

describe('cleanXmp: positions are dropped unless kept, at any depth and whatever the prefix', () => {
  it.each(cases)('%s', (_name, element, attrs) => {
    // The same property as an element, as an attribute, and nested inside a kept structure.
    const nested = `<ext:ArtworkOrObject><rdf:Bag><rdf:li rdf:parseType="Resource"><ext:AOTitle>kept art</ext:AOTitle>${element}</rdf:li></rdf:Bag></ext:ArtworkOrObject>`
    const source = packet(element + nested, attrs)
    const { withoutGps, withGps } = cleanXmp(source)
    expect(withoutGps).toContain('kept title')
    expect(withoutGps).toContain('kept art')
    const strip = (x: string) => x.replace(/^<([a-z]+):/, '')
    const name = strip(element).slice(0, strip(element).search(/[ >]/))
    expect(withoutGps).not.toContain(name)
    for (const attr of attrs.split(' ').filter(Boolean)) expect(withoutGps).not.toContain(attr)
    expect(withGps).toContain(element)
    for (const attr of attrs.split(' ').filter(Boolean)) expect(withGps).toContain(attr)
  })

  it('keeps what only looks close: the creator’s contact address, exposure, a title', () => {
    const body =
      '<core:CreatorContactInfo rdf:parseType="Resource"><core:CiAdrCity>Reykjavik</core:CiAdrCity></core:CreatorContactInfo><e:ExposureTime>1/125</e:ExposureTime>'
    const { withoutGps } = cleanXmp(packet(body))
    expect(withoutGps).toContain('<core:CiAdrCity>Reykjavik</core:CiAdrCity>')
    expect(withoutGps).toContain('<e:ExposureTime>1/125</e:ExposureTime>')
  })

  it('drops embedded previews of the original with every setting: xmp:Thumbnails, xmpGImg, Google’s GImage:Data', () => {
    const body =
      '<xap:Thumbnails><rdf:Alt><rdf:li rdf:parseType="Resource"><img:format>JPEG</img:format><img:image>/9j/AAAA</img:image></rdf:li></rdf:Alt></xap:Thumbnails>' +
      '<gimage:Data>/9j/BBBB</gimage:Data><img:image>/9j/CCCC</img:image>'
    for (const kept of Object.values(cleanXmp(packet(body, 'xap:CreatorTool="tool"')))) {
      expect(kept).toContain('xap:CreatorTool="tool"')
      for (const gone of ['Thumbnails', '/9j/', 'img:format']) expect(kept).not.toContain(gone)
    }
  })
})

/** One IPTC-IIM dataset, in the standard or the extended length form. */
function dataset(record: number, number: number, text: string, extended = false): Buffer {
  const value = Buffer.from(text, 'utf8')
  if (!extended) return Buffer.concat([Buffer.from([0x1c, record, number, value.length >> 8, value.length & 255]), value])
  return Buffer.concat([Buffer.from([0x1c, record, number, 0x80, 4, 0, 0, value.length >> 8, value.length & 255]), value])
}

describe('cleanIptc', () => {
  const record = Buffer.concat([
    dataset(1, 90, '\x1b%G'),
    dataset(2, 80, 'Ada'),
    dataset(2, 26, 'ISL-code'),
    dataset(2, 27, 'Iceland-name'),
    dataset(2, 90, 'Vik'),
    dataset(2, 92, 'Reynisfjara'),
    dataset(2, 95, 'Sudurland', true),
    dataset(2, 100, 'ISL'),
    dataset(2, 101, 'Iceland'),
    dataset(2, 120, 'a caption', true),
    Buffer.alloc(3) // padding, as writers leave it
  ])

  it('drops the place datasets 2:26, 2:27, 2:90, 2:92, 2:95, 2:100, 2:101, in either length form; keeps the rest as it came', () => {
    const { withoutPlace, withPlace } = cleanIptc(record)
    expect(withPlace).toEqual(record)
    expect(withoutPlace).toEqual(Buffer.concat([dataset(1, 90, '\x1b%G'), dataset(2, 80, 'Ada'), dataset(2, 120, 'a caption', true)]))
  })

  it('a record that does not parse is not kept at all', () => {
    for (const bad of [Buffer.from('not iptc'), record.subarray(0, record.length - 12), Buffer.from([0x1c, 2, 90, 0x80, 9, 1])]) {
      expect(cleanIptc(bad)).toEqual({ withoutPlace: null, withPlace: null })
    }
  })

  it('read from an input and chosen by the metadata setting; a broken record says so', () => {
    const source = readSourceMetadata({ iptc: record })
    expect(outputMetadata(source, 'keep').iptc!.includes('Reynisfjara')).toBe(false)
    expect(outputMetadata(source, 'keep').iptc!.includes('Ada')).toBe(true)
    expect(outputMetadata(source, 'keep-gps').iptc).toEqual(record)
    expect(outputMetadata(source, 'strip').iptc).toBeNull()
    const broken = readSourceMetadata({ iptc: Buffer.from([0x1c, 2, 90, 0, 40, 65]) })
    expect(broken.iptc).toBeNull()
    expect(broken.warnings).toEqual(['metadata: the IPTC record does not parse and was not kept'])
    expect(CLIPPING_DEFAULTS.metadata).toBe('keep')
  })
})
