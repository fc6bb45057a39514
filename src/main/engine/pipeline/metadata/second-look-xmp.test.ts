import { SaxesParser } from 'saxes'
import { describe, expect, it } from 'vitest'
import { CLIPDESK_NS, withSecondLook } from './second-look-xmp'

/** The attributes of every element of a packet, as a real XML parser reads them. */
function attributes(xmp: string): Record<string, string> {
  const out: Record<string, string> = {}
  const parser = new SaxesParser({ xmlns: true })
  parser.on('opentag', (tag) => {
    for (const a of Object.values(tag.attributes)) if (typeof a !== 'string' && a.uri === CLIPDESK_NS) out[a.local] = a.value
  })
  parser.write(xmp).close()
  return out
}

describe('the second look in the outputs XMP', () => {
  it('makes a packet of its own, or adds a description to the input packet; nothing without a second look', () => {
    const own = withSecondLook(null, { views: 4, reason: 'empty' })!
    expect(attributes(own)).toEqual({ SecondLookViews: '4', SecondLookReason: 'empty' })
    const input =
      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" dc:format="image/jpeg"/></rdf:RDF></x:xmpmeta>'
    const added = withSecondLook(input, { views: 2, reason: 'small' })!
    expect(attributes(added)).toEqual({ SecondLookViews: '2', SecondLookReason: 'small' })
    expect(added).toContain('dc:format="image/jpeg"')
    expect(withSecondLook(input, null)).toBe(input)
    expect(withSecondLook(null, null)).toBeNull()
  })
})
