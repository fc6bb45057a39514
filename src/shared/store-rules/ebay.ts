/**
 * eBay's picture rules. Source: eBay, "Picture policy"
 * (https://www.ebay.com/help/policies/listing-policies/picture-policy?id=4370). The page could
 * not be opened when this file was written (no network to it): the figures are the ones it is
 * publicly known to give; the list of formats comes from third-party summaries.
 */
import type { RuleSetInput } from '../store-rules'

const PAGE = 'eBay, "Picture policy": https://www.ebay.com/help/policies/listing-policies/picture-policy?id=4370'

export const EBAY: RuleSetInput = {
  name: 'ebay',
  title: 'eBay',
  preset: 'ebay',
  source: PAGE,
  note: 'eBay does not ask for a white background. Not checked: borders, text and artwork added to the photo (the policy forbids them); see docs/store-ready.md.',
  rules: {
    wholeSubject: { source: PAGE, note: 'The item is shown whole (a cut item reads as a detail shot).' },
    size: {
      minLongest: 500,
      recommendedLongest: 1600,
      source: PAGE,
      note: 'At least 500 px on the longest side; 1600 px is recommended.'
    },
    formats: {
      allowed: ['jpeg', 'png', 'gif', 'tiff', 'bmp', 'webp', 'avif'],
      source: PAGE,
      note: 'From third-party summaries of eBay’s upload help; not checked on eBay’s page today.'
    }
  }
}
