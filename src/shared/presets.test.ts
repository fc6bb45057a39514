import { describe, expect, it } from 'vitest'
import { PRESET_NAME_PATTERN } from './params-keys'
import { BUILTIN_PRESETS, presetSlug } from './presets'

describe('preset names', () => {
  it('makes a short name from any display name', () => {
    expect(presetSlug('Shop Beige')).toBe('shop-beige')
    expect(presetSlug('  Shop / beige -- 2  ')).toBe('shop-beige-2')
    expect(presetSlug('Café crème')).toBe('cafe-creme')
    expect(presetSlug('!!!')).toBe('')
    expect(presetSlug('x'.repeat(100))).toHaveLength(64)
    for (const title of ['Shop Beige', 'Café crème', 'A—B', 'ÆØÅ test']) expect(presetSlug(title)).toMatch(PRESET_NAME_PATTERN)
  })

  it('gives every built-in a display name and no API words in its description', () => {
    for (const p of BUILTIN_PRESETS) {
      expect(p.title).not.toBe(p.name)
      expect(p.description).not.toMatch(/final_url|shadowTop/)
    }
  })
})
