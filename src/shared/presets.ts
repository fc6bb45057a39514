/**
 * Presets: named parameter sets. The built-in ones are code constants (the same in every
 * installation, never editable); user presets live in the engine's database and are managed
 * over IPC (`presetsList`, `presetsSave`, `presetsDelete`) and `clipdesk presets`.
 * No Node, no DOM here.
 */
import type { IpcUploadRequest } from './ipc-upload'
import { parseParams } from './params'
import { formatParams } from './params-format'
import type { ParamValues } from './params-keys'

/** A preset as listed (IPC `presetsList`, `clipdesk presets list`). */
export interface PresetInfo {
  /** The short name it is used by (`params=shop-beige`, `--params shop-beige`): `[a-z0-9][a-z0-9_-]{0,63}`. */
  name: string
  /** The name shown on screens, any text ("Shop Beige"); the short name when none was given. */
  title: string
  builtin: boolean
  description: string | null
  /** The keys the preset sets, in canonical inline form (`background=#FFFFFF;shadow=top;…`). */
  params: string
  /** The same keys as typed values (the JSON form of a parameter set). */
  values: ParamValues
  /** Unix ms; null for built-ins. */
  createdAt: number | null
  updatedAt: number | null
}

/** IPC `presetsSave`: creates a user preset, or replaces the one of that name. */
export interface PresetSaveRequest {
  /** The short name; absent or empty: made from `title` (`presetSlug`). */
  name?: string
  /** The name shown on screens, with spaces and capitals as the user wrote it. */
  title?: string | null
  /**
   * A parameter set in any form of docs/params.md (inline string, JSON object, or led by another
   * preset's name, whose keys are copied in at save time).
   */
  params: string | Record<string, unknown>
  description?: string | null
}

/** Longest preset description. */
export const MAX_PRESET_DESCRIPTION = 500
/** Longest display name. */
export const MAX_PRESET_TITLE = 120

/**
 * The short name of a display name: lower case, accents dropped, every run of other characters
 * one `-` ("Shop Beige 2" → `shop-beige-2`, "Café crème" → `cafe-creme`); empty when nothing
 * usable is left. At most 64 characters, the grammar of preset names.
 */
export function presetSlug(title: string): string {
  const base = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
  let slug = ''
  for (const ch of base) {
    const keep = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch === '_'
    if (keep) slug += ch
    else if (slug !== '' && !slug.endsWith('-')) slug += '-'
  }
  return slug.slice(0, 64).replace(/-+$/, '')
}

interface BuiltinDefinition {
  name: string
  title: string
  description: string
  params: string
}

const DEFINITIONS: BuiltinDefinition[] = [
  {
    name: 'ecommerce-white',
    title: 'E-commerce white',
    description:
      'Product on pure white, cropped to the subject, 2000×2000 with a 5 % margin, standing on the bottom margin, with a contact shadow (main file: with shadow). A side the photo cuts (a torso cut at the waist) stays on the edge, with no shadow under it; a small photo is enlarged to fill, with a warning beyond 2×.',
    params: 'background=#FFFFFF;shadow=top;crop=subject;size=2000x2000;margin=5%;position=bottom;upscale=allow;primary=shadowTop'
  },
  {
    name: 'transparent-square',
    title: 'Transparent square',
    description:
      'Cut-out on a transparent 2000×2000 square, cropped to the subject and centred with a 5 % margin; a small photo is enlarged to fill, with a warning beyond 2× (add upscale=never to keep its own size).',
    params:
      'background=transparent;shadow=none;crop=subject;size=2000x2000;margin=5%;position=center;upscale=allow;variations=clipping,mask;primary=clipping'
  },
  {
    name: 'marketplace-1600',
    title: 'Marketplace 1600',
    description:
      'Marketplace listing image: white 1600×1600, subject cropped and centred with an 8 % margin, no shadow; a small photo is enlarged to fill, with a warning beyond 2×. Written in the format you choose and checked against no store: for a store, use its own preset (amazon, ebay, etsy, shopify, google), which also sets the format and is checked after each job.',
    params: 'background=#FFFFFF;shadow=none;crop=subject;size=1600x1600;margin=8%;position=center;upscale=allow;quality=90'
  },
  {
    name: 'social-blur',
    title: 'Social, blurred',
    description: 'Social post: 1080×1080 square, subject centred with a 10 % margin over its own photo, blurred.',
    params: 'background=blur;shadow=none;crop=subject;size=1080x1080;margin=10%;position=center;upscale=allow'
  }
]

/**
 * The store presets (docs/store-ready.md): each frames, sizes, colours and encodes so that the
 * written file passes that store's rule set (`store-rules/<store>.ts`) by construction, and each
 * job made with one is checked against it. A white background composed exactly (255), no
 * shadow, the subject centred with the margin that puts its longest side where the store asks,
 * enlarged at most 2× (Google: not at all), the canvas shrinking to keep to that but not under
 * the store's minimum, and the format the store takes.
 */
const STORE_DEFINITIONS: BuiltinDefinition[] = [
  {
    name: 'amazon',
    title: 'Amazon',
    description:
      "Amazon's main image: the product on pure white (255), its longest side 88 % of a 2000×2000 JPEG (sRGB), no shadow. A small photo is enlarged at most 2× and the square shrinks to keep to that, never under 1000 px; what Amazon would refuse is written and marked Not ready with the reason.",
    params:
      'background=#FFFFFF;shadow=none;crop=subject;size=2000x2000;margin=6%;position=center;upscale=2x,1000;quality=90;variations=compose;format=jpg'
  },
  {
    name: 'ebay',
    title: 'eBay',
    description:
      "eBay's listing photo: the product on white, its longest side 88 % of a 1600×1600 JPEG, no shadow; enlarged at most 2×, never under 500 px.",
    params:
      'background=#FFFFFF;shadow=none;crop=subject;size=1600x1600;margin=6%;position=center;upscale=2x,500;quality=90;variations=compose;format=jpg'
  },
  {
    name: 'etsy',
    title: 'Etsy',
    description:
      "Etsy's first photo: the product on white, centred with an 8 % margin on a 2000×2000 JPEG (square, so its 4:3 and square thumbnails keep it whole); enlarged at most 2×, never under 635 px.",
    params:
      'background=#FFFFFF;shadow=none;crop=subject;size=2000x2000;margin=8%;position=center;upscale=2x,635;quality=90;variations=compose;format=jpg'
  },
  {
    name: 'shopify',
    title: 'Shopify',
    description:
      "Shopify's product image: the product on white, its longest side 88 % of a 2048×2048 JPEG (Shopify's recommended square, for zoom); enlarged at most 2×.",
    params:
      'background=#FFFFFF;shadow=none;crop=subject;size=2048x2048;margin=6%;position=center;upscale=2x;quality=90;variations=compose;format=jpg'
  },
  {
    name: 'google',
    title: 'Google Shopping',
    description:
      "Google Merchant Center's image: the product on white taking 86 % of a square JPEG of up to 1600 px, never enlarged (Google refuses upscaled images): a small photo gives a smaller square, not under 100 px.",
    params:
      'background=#FFFFFF;shadow=none;crop=subject;size=1600x1600;margin=7%;position=center;upscale=1x,100;quality=90;variations=compose;format=jpg'
  }
]

/** Whether `name` is a store preset (a job made with it is checked against that store's rules). */
export function isStorePreset(name: string | null | undefined): boolean {
  return name !== null && name !== undefined && STORE_DEFINITIONS.some((d) => d.name === name)
}

function definitionToInfo(d: BuiltinDefinition): PresetInfo {
  const parsed = parseParams(d.params)
  if (!parsed.ok || parsed.value.preset !== null) throw new Error(`built-in preset ${d.name} does not parse`)
  const values = parsed.value.values
  return {
    name: d.name,
    title: d.title,
    builtin: true,
    description: d.description,
    params: formatParams(values),
    values,
    createdAt: null,
    updatedAt: null
  }
}

export const BUILTIN_PRESETS: readonly PresetInfo[] = [...DEFINITIONS, ...STORE_DEFINITIONS].map(definitionToInfo)

export function builtinPreset(name: string): PresetInfo | null {
  return BUILTIN_PRESETS.find((p) => p.name === name) ?? null
}

/**
 * The job the preset editor's preview runs: the set as it will be used (mode `params`, as a set
 * alone runs everywhere), written as PNG. Only the main file is made (`delivery_mode=final_url`),
 * and the preview shows it: the same pipeline and the same main file as a batch, a watched
 * folder or `clipdesk process` with this preset writes (test/preset-preview.test.ts holds the two
 * against each other).
 */
export function previewRequest(params: string, file: { bytes: Uint8Array; name: string; type: string }): IpcUploadRequest {
  return { mode: 'params', params, output_format: 'png', delivery_mode: 'final_url', file }
}
