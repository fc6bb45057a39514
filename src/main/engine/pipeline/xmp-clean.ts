/**
 * An input's XMP packet made fit to travel with its outputs: parsed with a real XML parser
 * (saxes, a linear state machine) and written out again without the properties that no longer
 * hold or that the user did not opt in to:
 *
 * - `tiff:Orientation`: the pixels were turned upright when decoded, so it would turn them twice;
 * - `exif:GPS*` (the position where the photo was taken), unless GPS is kept on purpose.
 *
 * Properties are recognised by namespace URI, whatever prefix the packet binds to it. A packet
 * with a DTD, deeper than `MAX_DEPTH` or not well-formed is dropped whole. Runs only inside the
 * decode sandbox.
 */
import { SaxesParser, type SaxesAttributeNS, type SaxesTagNS } from 'saxes'

const EXIF_NS = 'http://ns.adobe.com/exif/1.0/'
const TIFF_NS = 'http://ns.adobe.com/tiff/1.0/'
const MAX_DEPTH = 256

export interface CleanXmp {
  /** Without orientation and GPS; null when nothing is left worth writing. */
  withoutGps: string | null
  /** Without orientation, with the GPS position the input had. */
  withGps: string | null
}

function dropped(uri: string, local: string, keepGps: boolean): boolean {
  if (uri === TIFF_NS && local === 'Orientation') return true
  return !keepGps && uri === EXIF_NS && local.startsWith('GPS')
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
    if (stack[stack.length - 1]) out.push(escapeText(text))
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
    text += ` ${attr.name}="${escapeAttribute(attr.value)}"`
  }
  return text
}

function escapeText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

function escapeAttribute(text: string): string {
  return escapeText(text).replaceAll('"', '&quot;')
}

/** A processing instruction's body cannot hold `?>`. */
function escapePi(body: string): string {
  return body.replaceAll('?>', '')
}
