/**
 * Etsy's listing-photo recommendations. Source: Etsy Help, "Listing photos"
 * (https://help.etsy.com/hc/en-us/articles/115015663347). The page could not be opened when
 * this file was written (no network to it): the figures are the ones it is publicly known to
 * give.
 */
import type { RuleSetInput } from '../store-rules'

const PAGE = 'Etsy Help, "Listing photos": https://help.etsy.com/hc/en-us/articles/115015663347'

export const ETSY: RuleSetInput = {
  name: 'etsy',
  title: 'Etsy',
  preset: 'etsy',
  source: PAGE,
  note: 'Etsy recommends rather than refuses: the check holds its minimum. Thumbnails are cropped to 4:3 and squares; the etsy preset writes a square, which crops to both. Not checked: text and watermarks.',
  rules: {
    wholeSubject: { source: PAGE, note: 'The first photo shows the whole item (its thumbnail).' },
    size: {
      minWidth: 635,
      recommendedLongest: 2000,
      source: PAGE,
      note: 'At least 635 px wide; 2000 px on the shortest side is recommended.'
    },
    formats: { allowed: ['jpeg', 'png', 'gif'], source: PAGE, note: 'JPG, GIF or PNG.' }
  }
}
