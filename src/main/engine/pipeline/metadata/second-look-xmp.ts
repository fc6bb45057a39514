/**
 * The second look an output's photo got, in the output's XMP (docs/pipeline.md "Second look"):
 * `clipdesk:SecondLookViews` (the model runs beyond the first) and `clipdesk:SecondLookReason`
 * (`uncertain`, `small`, `empty` or `asked`), in an `rdf:Description` of their own. The input's
 * packet (already cleaned by `xmp-clean.ts`) gets it before its closing `</rdf:RDF>`; without one,
 * a packet of its own carries it.
 */
import type { SecondLook } from '../../../../shared/params-types'

export const CLIPDESK_NS = 'https://clipdesk.app/ns/xmp/1.0/'

const RDF_END = '</rdf:RDF>'

/** `xmp` with the second look's description added; `xmp` as it is when there was none (or the packet has no `rdf:RDF` to add it to). */
export function withSecondLook(xmp: string | null, look: SecondLook | null): string | null {
  if (!look) return xmp
  const description =
    `<rdf:Description rdf:about="" xmlns:clipdesk="${CLIPDESK_NS}"` +
    ` clipdesk:SecondLookViews="${Math.trunc(look.views)}" clipdesk:SecondLookReason="${look.reason}"/>`
  if (xmp === null)
    return (
      '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>' +
      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
      `${description}</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`
    )
  const at = xmp.lastIndexOf(RDF_END)
  return at < 0 ? xmp : xmp.slice(0, at) + description + xmp.slice(at)
}
