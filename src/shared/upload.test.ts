import { describe, expect, it } from 'vitest'
import { validateUpload } from './upload'

describe('validateUpload', () => {
  it('fills the defaults of the seed', () => {
    expect(validateUpload({ file_url: 'https://example.com/a.png' }, false)).toEqual({
      ok: true,
      value: {
        mode: 'clipping',
        set: null,
        output_format: 'png',
        formatGiven: false,
        delivery_mode: 'url',
        params: null,
        file_url: 'https://example.com/a.png',
        regions: null
      }
    })
    const named = validateUpload({ file_url: 'https://example.com/a.png', output_format: 'png' }, false)
    expect(named.ok && named.value.formatGiven).toBe(true)
  })

  it('hands on the set it parsed and the mode it decided, also with a refusal', () => {
    expect(validateUpload({ params: 'ecommerce-white;size=1200' }, true)).toMatchObject({
      ok: true,
      value: {
        mode: 'params',
        params: 'ecommerce-white;size=1200',
        set: { preset: 'ecommerce-white', values: { size: { kind: 'long', max: 1200 } } }
      }
    })
    // What did parse of a bad set, and the mode it runs in, go with the refusal for the set's other checks.
    expect(validateUpload({ mode: 'background', params: 'nosuch;size=12x;quality=80' }, true)).toMatchObject({
      ok: false,
      code: 'validation_failed',
      details: [{ field: 'params.size' }],
      parsed: { mode: 'background', set: { preset: 'nosuch', values: { quality: 80 } } }
    })
    // A mode outside the modes is refused; the set is then checked as mode=params would run it.
    expect(validateUpload({ mode: 'bogus', params: 'shadow=top' }, true)).toMatchObject({
      ok: false,
      parsed: { mode: 'params', set: { preset: null, values: { shadow: 'top' } } }
    })
    expect(validateUpload({ params: '{"size":' }, true)).toMatchObject({ ok: false, parsed: { mode: 'params', set: null } })
  })

  it('reads look-again boxes from JSON text or an array, with a file only', () => {
    const box = { x: 1, y: 2, width: 16, height: 20 }
    const text = validateUpload({ regions: JSON.stringify([box]) }, true)
    expect(text.ok && text.value.regions).toEqual([box])
    const array = validateUpload({ regions: [box] }, true)
    expect(array.ok && array.value.regions).toEqual([box])
    expect(validateUpload({ regions: '[]' }, true)).toMatchObject({ ok: true, value: { regions: null } })
    expect(validateUpload({ regions: '[{"x":1' }, true)).toMatchObject({
      ok: false,
      code: 'validation_failed',
      details: [{ field: 'regions' }]
    })
    expect(validateUpload({ regions: 'x'.repeat(2001) }, true)).toMatchObject({
      ok: false,
      code: 'validation_failed',
      details: [{ field: 'regions', issue: expect.stringMatching(/longer than 2000/) }]
    })
    expect(validateUpload({ file_url: 'https://example.com/a.png', regions: [box] }, false)).toMatchObject({
      ok: false,
      code: 'validation_failed',
      details: [{ field: 'regions' }]
    })
    expect(validateUpload({ regions: { x: 1 } }, true)).toMatchObject({
      ok: false,
      code: 'malformed_request',
      details: [{ field: 'regions' }]
    })
  })

  it('treats null like an absent field', () => {
    const r = validateUpload({ file_url: null, mode: null }, true)
    expect(r.ok && r.value.mode).toBe('clipping')
  })

  it('answers 400 codes for type errors and missing input, 422 for values', () => {
    expect(validateUpload({ mode: 1 }, true)).toMatchObject({ ok: false, code: 'malformed_request' })
    expect(validateUpload({}, false)).toMatchObject({ ok: false, code: 'missing_input' })
    expect(validateUpload({ file_url: 'https://x.example/a' }, true)).toMatchObject({ ok: false, code: 'validation_failed' })
    expect(validateUpload({ file_url: 'javascript:alert(1)' }, false)).toMatchObject({ ok: false, code: 'validation_failed' })
  })

  it('accepts params as a string or an object, and requires it for mode=params', () => {
    expect(validateUpload({ mode: 'params', params: 'ecommerce-white' }, true).ok).toBe(true)
    expect(validateUpload({ mode: 'params', params: { size: '1600x1600' } }, true).ok).toBe(true)
    expect(validateUpload({ mode: 'params' }, true)).toMatchObject({ ok: false, details: [{ field: 'params' }] })
  })

  it('accepts a params string of exactly 2,048 characters and refuses 2,049', () => {
    // A valid set padded with empty parts (forgiven by the grammar) to the exact length.
    const padded = (n: number) => `shadow=none${';'.repeat(n - 'shadow=none'.length)}`
    expect(validateUpload({ params: padded(2048) }, true).ok).toBe(true)
    expect(validateUpload({ params: padded(2049) }, true)).toMatchObject({ ok: false, code: 'validation_failed' })
  })
})
