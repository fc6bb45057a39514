/**
 * An input's XMP packet made fit to travel with its outputs: parsed with a real XML parser
 * (saxes, a linear state machine) and written out again without the properties that no longer
 * hold or that the user did not opt in to (the table in docs/pipeline.md, "Metadata"):
 *
 * - `tiff:Orientation`: the pixels were turned upright when decoded, so it would turn them twice;
 * - embedded images of the original (`xmp:Thumbnails`, `xmpGImg:*`, Google's `GImage:Data` and
 *   `GDepth:Data`, any property named like a thumbnail): they show the photo before it was cut
 *   out, background and all, so no setting keeps them;
 * - where the photo was taken, unless kept on purpose (`metadata=keep-gps`): `exif:GPS*` and any
 *   property of any namespace named like a position (`GPS…`, `…Latitude`, `…Longitude`,
 *   `…Altitude`, `…Location…`), the place fields of the IPTC and Photoshop schemas (`City`,
 *   `State`, `Country`, `CountryCode`, `Sublocation`…, `LocationCreated`, `LocationShown`), and
 *   drone flight telemetry namespaces (`drone-dji:`, `drone-parrot:`… : the aircraft's position,
 *   altitude, speed and attitude) whole.
 *
 * Properties are recognised by namespace URI and local name, whatever prefix the packet binds,
 * at any depth: everything inside a dropped property goes with it. A packet with a DTD, deeper
 * than `MAX_DEPTH` or not well-formed is dropped whole. Runs only inside the decode sandbox.
 */
import { SaxesParser, type SaxesAttributeNS, type SaxesTagNS } from 'saxes'
import { escapeXmlAttribute, escapeXmlText } from '../../../../shared/text'

const TIFF_NS = 'http://ns.adobe.com/tiff/1.0/'
const XMP_NS = 'http://ns.adobe.com/xap/1.0/'
const MAX_DEPTH = 256

/** Namespaces whose every property is an embedded image of the original. */
const IMAGE_NAMESPACES = new Set(['http://ns.adobe.com/xap/1.0/g/img/'])
/** Embedded images in other namespaces: namespace → local names. */
const IMAGE_PROPERTIES = new Map([
  [XMP_NS, new Set(['Thumbnails'])],
  ['http://ns.google.com/photos/1.0/image/', new Set(['Data'])],
  ['http://ns.google.com/photos/1.0/depthmap/', new Set(['Data'])]
])
/** Place fields (by local name) of the schemas that have them: "State" alone means a place only here. */
const PLACE_SCHEMAS = new Set([
  'http://ns.adobe.com/photoshop/1.0/',
  'http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/',
  'http://iptc.org/std/Iptc4xmpExt/2008-02-29/'
])
const PLACE_FIELDS = new Set(['City', 'State', 'Country', 'CountryCode', 'CountryName', 'ProvinceState', 'Sublocation', 'WorldRegion'])
/** Words that make a property a position in any namespace (lower case; DJI spells one "Longtitude"). */
const POSITION_WORDS = ['latitude', 'longitude', 'longtitude', 'altitude', 'location']

/** An embedded image of the original: never kept. */
function isEmbeddedImage(uri: string, local: string): boolean {
  return IMAGE_NAMESPACES.has(uri) || IMAGE_PROPERTIES.get(uri)?.has(local) === true || local.toLowerCase().includes('thumbnail')
}

/** Where the photo was taken (kept only with `keep-gps`). */
export function isPosition(uri: string, local: string): boolean {
  // Drone makers publish their telemetry as `…/drone-<maker>/…` namespaces.
  if (uri.includes('/drone-')) return true
  if (PLACE_SCHEMAS.has(uri) && (PLACE_FIELDS.has(local) || local.startsWith('Location'))) return true
  const name = local.toLowerCase()
  return name.startsWith('gps') || POSITION_WORDS.some((word) => name.includes(word))
}

export interface CleanXmp {
  /** Without orientation, embedded images and position; null when nothing is left worth writing. */
  withoutGps: string | null
  /** Without orientation and embedded images, with the position the input had. */
  withGps: string | null
}

function dropped(uri: string, local: string, keepGps: boolean): boolean {
  if (uri === TIFF_NS && local === 'Orientation') return true
  if (isEmbeddedImage(uri, local)) return true
  return !keepGps && isPosition(uri, local)
}

export function cleanXmp(source: string): CleanXmp {
  // Writers often end the packet with a NUL (a C string), which XML does not allow.
  let end = source.length
  while (end > 0 && source.charCodeAt(end - 1) === 0) end--
  const text = source.slice(0, end)
  return { withoutGps: rewrite(text, false), withGps: rewrite(text, true) }
}

function rewrite(source: string, keepGps: boolean): string | null {
  const parser = new SaxesParser({ xmlns: true })
  const out: string[] = []
  // Per open element: whether it is written (an element inside a dropped one is dropped too).
  const stack: boolean[] = []
  let failed = false
  let sawElement = false

  parser.on('error', () => {
    failed = true
  })
  parser.on('doctype', () => {
    failed = true
  })
  parser.on('processinginstruction', (pi) => {
    if (pi.target === 'xpacket') out.push(`<?xpacket ${escapePi(pi.body)}?>`)
  })
  parser.on('opentag', (tag: SaxesTagNS) => {
    sawElement = true
    if (stack.length >= MAX_DEPTH) {
      failed = true
      return
    }
    const kept = (stack[stack.length - 1] ?? true) && !dropped(tag.uri, tag.local, keepGps)
    stack.push(kept)
    if (kept) out.push(`<${tag.name}${attributes(tag, keepGps)}>`)
  })
  const onText = (text: string): void => {
    if (stack[stack.length - 1]) out.push(escapeXmlText(text))
  }
  parser.on('text', onText)
  parser.on('cdata', onText)
  parser.on('closetag', (tag) => {
    if (stack.pop()) out.push(`</${tag.name}>`)
  })

  try {
    parser.write(source).close()
  } catch {
    failed = true
  }
  if (failed || !sawElement) return null
  return out.join('')
}

function attributes(tag: SaxesTagNS, keepGps: boolean): string {
  let text = ''
  for (const attr of Object.values(tag.attributes) as SaxesAttributeNS[]) {
    if (dropped(attr.uri, attr.local, keepGps)) continue
    text += ` ${attr.name}="${escapeXmlAttribute(attr.value)}"`
  }
  return text
}

/** A processing instruction's body cannot hold `?>`. */
function escapePi(body: string): string {
  return body.replaceAll('?>', '')
}
