/**
 * Hostile parameter sets (fast-check): any string or JSON value given as `params` is either
 * parsed into a set or refused with details naming `params…` fields — it never throws, and
 * what it accepts always resolves or is refused cleanly.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseParams } from './params'
import { PARAM_KEYS } from './params-keys'
import { resolveParams } from './params-layers'

const noPresets = () => null

function expectClean(input: unknown): void {
  const parsed = parseParams(input)
  if (!parsed.ok) {
    expect(parsed.details.length).toBeGreaterThan(0)
    for (const d of parsed.details) {
      expect(d.field).toMatch(/^params/)
      expect(typeof d.issue).toBe('string')
    }
    return
  }
  for (const mode of ['clipping', 'background', 'params'] as const) {
    const resolved = resolveParams(mode, parsed.value, noPresets)
    if (resolved.ok) expect(resolved.value.variations.length).toBeGreaterThan(0)
    else for (const d of resolved.details) expect(d.field).toMatch(/^params/)
  }
}

const key = fc.oneof(fc.constantFrom(...PARAM_KEYS), fc.string({ maxLength: 12 }))
const value = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.constantFrom(
    'transparent',
    '#fff',
    '#12345678',
    'blur',
    'blur:9999',
    'top',
    'none',
    'subject',
    '1600x1600',
    '0x0',
    '99999',
    '5%',
    '60%',
    '-3px',
    'bottom',
    'clipping,mask',
    'shadowTop',
    '101',
    'edges',
    'keep'
  ),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null)
)

describe('params grammar under hostile input', () => {
  it('never throws on arbitrary strings (1,000 cases)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3000 }), (s) => expectClean(s)),
      { numRuns: 1000 }
    )
  })

  it('never throws on inline sets built from real and bogus keys (1,000 cases)', () => {
    const pair = fc.tuple(key, value).map(([k, v]) => `${k}=${String(v)}`)
    const inline = fc
      .tuple(
        fc.option(fc.constantFrom('ecommerce-white', 'social-blur', 'nope', 'Bad Name')),
        fc.array(pair, { maxLength: 8 }),
        fc.constantFrom(';', '&')
      )
      .map(([preset, pairs, sep]) => [preset, ...pairs].filter((p) => p !== null).join(sep))
    fc.assert(
      fc.property(inline, (s) => expectClean(s)),
      { numRuns: 1000 }
    )
  })

  it('never throws on JSON objects and arbitrary JSON values (1,000 cases)', () => {
    const obj = fc.dictionary(key, value, { maxKeys: 8 })
    fc.assert(
      fc.property(fc.oneof(obj, fc.jsonValue()), (v) => expectClean(v)),
      { numRuns: 1000 }
    )
  })
})
