/**
 * The output bound a job is checked and charged on (docs/api.md §3, §15), from real parameter
 * sets as the upload resolves them.
 */
import { describe, expect, it } from 'vitest'
import { parseParams } from '../../../shared/params'
import { resolveParams } from '../../../shared/params-layers'
import type { JobParams } from '../../../shared/params-types'
import { OUTPUT_LIMITS, overLimit } from '../pipeline/compose/output-limits'
import { canvasBound, creditsFor, outputBound, secondLookCredits } from './output-budget'

function set(text: string, mode: 'clipping' | 'params' = 'params'): JobParams {
  const parsed = parseParams(text)
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.details))
  const r = resolveParams(mode, parsed.value, () => null)
  if (!r.ok) throw new Error(JSON.stringify(r.details))
  return r.value
}

describe('canvasBound', () => {
  it('size=<W>x<H> is the canvas, known without the input', () => {
    expect(canvasBound(set('size=10000x10000'), null)).toEqual({ width: 10000, height: 10000 })
    expect(canvasBound(set('size=10000x10000'), { width: 400, height: 300 })).toEqual({ width: 10000, height: 10000 })
  })

  it('size=original and size=<max> need the input; its own shape with crop=none', () => {
    expect(canvasBound(set('size=original'), null)).toBeNull()
    expect(canvasBound(set('size=8000'), null)).toBeNull()
    expect(canvasBound(set('size=original;margin=100px'), { width: 400, height: 300 })).toEqual({ width: 600, height: 500 })
    expect(canvasBound(set('size=8000'), { width: 400, height: 300 })).toEqual({ width: 8000, height: 6000 })
  })

  it('crop=subject: the whole input bounds size=original, a square bounds size=<max>', () => {
    expect(canvasBound(set('crop=subject;size=original;margin=10px'), { width: 400, height: 300 })).toEqual({ width: 420, height: 320 })
    expect(canvasBound(set('crop=subject;size=8000'), { width: 400, height: 300 })).toEqual({ width: 8000, height: 8000 })
  })
})

describe('credits and limits', () => {
  it('one credit per started 100 MP of output summed over the variations, at least one', () => {
    expect(creditsFor(null)).toBe(1)
    expect(creditsFor(4000 * 3000 * 4)).toBe(1)
    expect(creditsFor(OUTPUT_LIMITS.creditPixels)).toBe(1)
    expect(creditsFor(OUTPUT_LIMITS.creditPixels + 1)).toBe(2)
    const twoOf10k = outputBound(set('size=10000x10000;variations=clipping,mask'), null)
    expect(twoOf10k).toEqual({ canvas: { width: 10000, height: 10000 }, variations: 2, pixels: 200_000_000 })
    expect(creditsFor(twoOf10k.pixels)).toBe(2)
  })

  it('500 MP of output (five variations of 10000²) is over the job limit', () => {
    const bound = outputBound(set('size=10000x10000;variations=clipping,background,compose,shadowTop,mask'), { width: 400, height: 300 })
    expect(overLimit(bound)).toBe(
      '5 variations of 10000×10000 would be 500 MP of output, over the 250 MP a job may make; ask for fewer variations or a smaller size'
    )
  })

  it('one canvas over 100 MP or 30,000 px a side is over the variation limit', () => {
    expect(overLimit(outputBound(set('size=original;margin=1000px;variations=clipping'), { width: 9000, height: 9000 }))).toBe(
      'the output canvas would be 11000×11000, over the limit (30,000 px a side, 100 MP a variation); use a smaller size or margin'
    )
    expect(overLimit({ canvas: { width: 30_001, height: 10 }, variations: 1, pixels: 300_010 })).toMatch(
      /^the output canvas would be 30001×10, over the limit/
    )
  })

  it('what fits: the largest single variation, and a 61 MP photo’s four default variations', () => {
    expect(overLimit(outputBound(set('size=10000x10000;variations=clipping'), null))).toBeNull()
    expect(overLimit(outputBound(set('size=original', 'params'), { width: 9504, height: 6336 }))).toBeNull()
    expect(overLimit(outputBound(set('size=original'), null))).toBeNull() // not known yet: checked once it is
  })
})

describe('the second look', () => {
  it('forced (look=always, or refine=detail) costs one credit per view it may take; the default and off cost nothing', () => {
    expect(secondLookCredits(set('look=always'))).toBe(4)
    expect(secondLookCredits(set('refine=detail'))).toBe(4)
    expect(secondLookCredits(set('look=auto'))).toBe(0)
    expect(secondLookCredits(set('look=off'))).toBe(0)
    expect(secondLookCredits(set('size=100'))).toBe(0)
  })
})
