import { describe, expect, it } from 'vitest'
import { closest, editDistance, suggestPresets } from './suggest'

describe('did you mean', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('fromat', 'format')).toBe(1)
    expect(editDistance('ecomerce-white', 'ecommerce-white')).toBe(1)
    expect(editDistance('', 'abc')).toBe(3)
    expect(editDistance('kitten', 'sitting')).toBe(3)
  })

  it('suggests only a near, unambiguous word', () => {
    expect(closest('fromat', ['out', 'mode', 'params', 'format', 'template'])).toBe('format')
    expect(closest('ecomerce-white', ['ecommerce-white', 'ecommerce-beige', 'cut-out'])).toBe('ecommerce-white')
    expect(closest('colour', ['out', 'mode', 'params', 'format', 'template'])).toBeNull()
    expect(closest('format', ['format'])).toBeNull() // nothing wrong with it
    expect(closest('ab', ['ac', 'ad'])).toBeNull() // two equally near: no guess
    expect(closest('x'.repeat(500), ['x'])).toBeNull()
  })

  it('adds the suggestion to an unknown preset only', () => {
    const details = [
      { field: 'params.preset', issue: 'no preset named "ecomerce-white"' },
      { field: 'params.size', issue: 'expected <W>x<H>' }
    ]
    expect(suggestPresets(details, ['ecommerce-white', 'shop'])).toEqual([
      { field: 'params.preset', issue: 'no preset named "ecomerce-white"; did you mean "ecommerce-white"?' },
      { field: 'params.size', issue: 'expected <W>x<H>' }
    ])
    expect(suggestPresets([{ field: 'params.preset', issue: 'no preset named "zzz"' }], ['shop'])).toEqual([
      { field: 'params.preset', issue: 'no preset named "zzz"' }
    ])
  })
})
