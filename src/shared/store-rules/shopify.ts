/**
 * Shopify's product-image limits. Source: Shopify Help Center, "Product media"
 * (https://help.shopify.com/en/manual/products/product-media/product-media-types). The page could
 * not be opened when this file was written (no network to it): the figures are the ones it is
 * publicly known to give.
 */
import type { RuleSetInput } from '../store-rules'

const PAGE = 'Shopify Help Center, "Product media": https://help.shopify.com/en/manual/products/product-media/product-media-types'

export const SHOPIFY: RuleSetInput = {
  name: 'shopify',
  title: 'Shopify',
  preset: 'shopify',
  source: PAGE,
  note: '2048×2048 squares are recommended for zoom; a theme may ask for more (a shop’s own rule file can say so).',
  rules: {
    size: {
      maxLongest: 4472,
      maxMegapixels: 20,
      recommendedLongest: 2048,
      source: PAGE,
      note: 'At most 4472×4472 px (20 megapixels); 2048×2048 recommended.'
    },
    formats: {
      allowed: ['jpeg', 'png', 'gif', 'webp', 'avif'],
      source: PAGE,
      note: 'HEIC is accepted too; Clipdesk does not write it.'
    },
    fileSize: { maxBytes: 20 * 1024 * 1024, source: PAGE, note: 'At most 20 MB.' }
  }
}
