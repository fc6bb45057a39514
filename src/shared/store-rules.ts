/**
 * Store rule sets (docs/store-ready.md): what a marketplace asks of a main product image, as
 * data. Each rule carries its threshold and the page it comes from; the built-in sets live in
 * `store-rules/<store>.ts`, a user's own in `<data folder>/rules/<name>.json`, both read through
 * `parseRuleSet` so that a hand-written file gets the same checks and clear errors.
 * No Node, no DOM here.
 */
import { z } from 'zod'

/** Where a figure comes from: the store's page, and a note when it could not be checked there. */
const source = z.string().trim().min(1).max(500)
const note = z.string().trim().max(500).optional()
const channel = z.number().int().min(0).max(255)
const share = z.number().min(0).max(1)
const side = z.number().int().min(1).max(100_000)

/** File formats a rule may name, as the sniffed type of the file's bytes. */
export const RULE_FORMATS = ['jpeg', 'png', 'gif', 'tiff', 'webp', 'bmp', 'avif', 'psd', 'svg'] as const
export type RuleFormat = (typeof RULE_FORMATS)[number]

export const RuleSetSchema = z
  .object({
    /** The name `--for` and `--check` take: `[a-z0-9][a-z0-9_-]{0,63}`. */
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'a name is 1–64 characters of a-z, 0-9, "_" and "-"'),
    /** The store's name in sentences ("Amazon"): "Ready for Amazon". */
    title: z.string().trim().min(1).max(80),
    /** The preset that makes files pass, named in the fix of a failure; null: none. */
    preset: z.string().nullable().default(null),
    /** Where the set as a whole comes from (a store's help page, or who wrote it). */
    source,
    note,
    /** How the figures were checked against the source (a built-in set says when its page could not be opened). */
    checked: z.string().trim().max(500).optional(),
    rules: z
      .object({
        /**
         * The background: `border`, the lowest channel value allowed along the frame's edge
         * (255: exactly white); `behind`, the lowest allowed in the background around the
         * subject; `share`, the part of those pixels that must meet it (JPEG's ringing beside
         * edges, a stray speck).
         */
        background: z.strictObject({ border: channel, behind: channel, share: share.default(0.98), source, note }).optional(),
        /** The subject's box as a share of the frame, on the axis it fills most. */
        fill: z
          .strictObject({ min: share, max: share.optional(), source, note })
          .refine((f) => f.max === undefined || f.max >= f.min, 'fill.max is below fill.min')
          .optional(),
        /** The whole product in the frame: not cut by the photo's edge. */
        wholeSubject: z.strictObject({ source, note }).optional(),
        /** Pixel size limits; `recommendedLongest` is said, not enforced. */
        size: z
          .strictObject({
            minLongest: side.optional(),
            maxLongest: side.optional(),
            minShortest: side.optional(),
            minWidth: side.optional(),
            minHeight: side.optional(),
            maxMegapixels: z.number().positive().max(10_000).optional(),
            recommendedLongest: side.optional(),
            source,
            note
          })
          .optional(),
        formats: z.strictObject({ allowed: z.array(z.enum(RULE_FORMATS)).min(1), source, note }).optional(),
        /** `srgb`: an sRGB (or untagged) RGB file; `cmyk`: also CMYK. */
        colourSpace: z.strictObject({ allowed: z.array(z.enum(['srgb', 'cmyk', 'other-rgb'])).min(1), source, note }).optional(),
        /** Transparency (an alpha channel that is not opaque everywhere) refused. */
        noAlpha: z.strictObject({ source, note }).optional(),
        fileSize: z.strictObject({ maxBytes: z.number().int().positive(), source, note }).optional(),
        /** After a job: how far the photo's subject may have been enlarged (1: not at all). */
        enlargement: z.strictObject({ max: z.number().min(1).max(100), source, note }).optional()
      })
      .strict()
  })
  .strict()

/** A rule set as written (defaults applied). */
export type RuleSet = z.output<typeof RuleSetSchema>
export type RuleSetInput = z.input<typeof RuleSetSchema>
export type RuleName = keyof RuleSet['rules']

/** A set's JSON, checked: the set, or every problem as "field: issue" lines. */
export function parseRuleSet(json: unknown): { ok: true; value: RuleSet } | { ok: false; problems: string[] } {
  const r = RuleSetSchema.safeParse(json)
  if (r.success) return { ok: true, value: r.data }
  return {
    ok: false,
    problems: r.error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(the file)'}: ${i.message}`)
  }
}

/** One rule a file broke: which, in plain words, and what to do about it. */
export interface CheckFailure {
  rule: RuleName | 'readable'
  /** "the product fills 72 % of the frame; Amazon asks about 85 %" */
  reason: string
  /** "run with --params amazon"; null when nothing Clipdesk does would fix it. */
  fix: string | null
}

/** A file checked against one store's rules (the status API's `checks[]`, the report, the app's badge). */
export interface StoreCheck {
  store: string
  title: string
  passed: boolean
  failures: CheckFailure[]
}

/** "Ready for Amazon" / "Not ready for Amazon: …" — the badge's and the report's words. */
export function checkHeadline(c: StoreCheck): string {
  if (c.passed) return `Ready for ${c.title}`
  return `Not ready for ${c.title}: ${c.failures.map((f) => f.reason).join('; ')}`
}
