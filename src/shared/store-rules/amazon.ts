/**
 * Amazon's main-image rules. Source: Amazon Seller Central, "Product image requirements"
 * (https://sellercentral.amazon.com/help/hub/reference/external/G1881). The page could not be
 * opened when this file was written (no network to it): the figures are the ones the page is
 * publicly known to give, and are to be checked against it when it changes.
 */
import type { RuleSetInput } from '../store-rules'

const PAGE = 'Amazon Seller Central, "Product image requirements": https://sellercentral.amazon.com/help/hub/reference/external/G1881'

export const AMAZON: RuleSetInput = {
  name: 'amazon',
  title: 'Amazon',
  preset: 'amazon',
  source: PAGE,
  note: 'Main (first) image rules. Not checked: text, logos, borders drawn inside the frame, watermarks, props; see docs/store-ready.md.',
  rules: {
    background: {
      border: 255,
      behind: 250,
      share: 0.98,
      source: PAGE,
      note: 'The page asks for pure white (RGB 255,255,255). Along the frame the check wants exactly 255; around the subject it allows 250 so that JPEG ringing next to an edge is not a failure, and 98 % of those pixels must meet it (glass or a soft edge of the product the model leaves out of its mask): Clipdesk tolerances, not Amazon’s figures.'
    },
    fill: { min: 0.85, source: PAGE, note: 'The product fills 85 % or more of the frame.' },
    wholeSubject: { source: PAGE, note: 'The entire product is in the frame.' },
    size: {
      minLongest: 1000,
      maxLongest: 10_000,
      recommendedLongest: 1600,
      source: PAGE,
      note: '1000 px on the longest side enables zoom; 1600 px or more is recommended; 10,000 px is the largest accepted.'
    },
    formats: { allowed: ['jpeg', 'png', 'tiff', 'gif'], source: PAGE, note: 'JPEG is preferred.' },
    colourSpace: { allowed: ['srgb'], source: PAGE, note: 'sRGB, what the amazon preset writes.' },
    noAlpha: { source: PAGE, note: 'A transparent background is not a white one.' },
    enlargement: {
      max: 2,
      source: 'Clipdesk: beyond 2× the product’s pixels are invented and look soft (docs/params.md, "upscale")',
      note: 'Checked after a job only: a file on disk does not say how much it was enlarged.'
    }
  }
}
