/**
 * Google Merchant Center's image rules. Source: Google Merchant Center Help, "Image link
 * [image_link]" (https://support.google.com/merchants/answer/6324350). The page could not be
 * opened when this file was written (no network to it): the figures are the ones it is publicly
 * known to give.
 */
import type { RuleSetInput } from '../store-rules'

const PAGE = 'Google Merchant Center Help, "Image link [image_link]": https://support.google.com/merchants/answer/6324350'

export const GOOGLE: RuleSetInput = {
  name: 'google',
  title: 'Google Shopping',
  preset: 'google',
  source: PAGE,
  note: 'Not checked: promotional overlays, watermarks and borders (refused by Google); see docs/store-ready.md.',
  rules: {
    fill: {
      min: 0.75,
      max: 0.9,
      source: PAGE,
      note: 'The product takes at least 75 % and at most 90 % of the image: a recommendation Google gives, held here.'
    },
    wholeSubject: { source: PAGE },
    size: {
      minWidth: 100,
      minHeight: 100,
      source: PAGE,
      note: 'At least 100×100 px (250×250 for apparel: a rule file of your own can say so).'
    },
    formats: { allowed: ['jpeg', 'png', 'gif', 'webp', 'bmp', 'tiff'], source: PAGE },
    fileSize: { maxBytes: 64 * 1024 * 1024, source: PAGE, note: 'At most 64 MB.' },
    enlargement: { max: 1, source: PAGE, note: 'Google refuses images scaled up; checked after a job only.' }
  }
}
