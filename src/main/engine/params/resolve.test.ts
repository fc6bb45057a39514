/**
 * An upload's parameter set resolved from the set its checks parsed (docs/api.md §6.3): the
 * job's set, or one refusal naming every problem, the set's presets and layering included.
 */
import { describe, expect, it } from 'vitest'
import { builtinPreset } from '../../../shared/presets'
import { EngineError } from '../errors'
import { paramsProblems, resolveUpload } from './resolve'

/** The built-in presets alone: an unknown name's "did you mean" is chosen among them. */
const presets = { lookup: (name: string) => builtinPreset(name)?.values ?? null }

function refusal(fields: Record<string, unknown>, hasFile = true): EngineError {
  try {
    resolveUpload(presets, fields, hasFile)
  } catch (err) {
    if (err instanceof EngineError) return err
    throw err
  }
  throw new Error('the upload was accepted')
}

describe('resolveUpload', () => {
  it("gives the request and its job's set, the preset laid under the set's own keys", () => {
    const { request, params } = resolveUpload(presets, { params: 'ecommerce-white;size=1200x900' }, true)
    expect(request).toMatchObject({ mode: 'params', params: 'ecommerce-white;size=1200x900', delivery_mode: 'url' })
    expect(params).toMatchObject({ preset: 'ecommerce-white', size: { kind: 'box', width: 1200, height: 900 }, primary: 'shadowTop' })
    expect(params.variations.length).toBeGreaterThan(1)
  })

  it('with final_url makes only the primary (and compose behind a shadowTop primary)', () => {
    const { params } = resolveUpload(presets, { params: 'ecommerce-white', delivery_mode: 'final_url' }, true)
    expect(params.variations).toEqual(['shadowTop', 'compose'])
    expect(resolveUpload(presets, { delivery_mode: 'final_url' }, true).params.variations).toEqual(['clipping'])
  })

  it('refuses a set whose fields are good but whose preset is unknown, naming the nearest', () => {
    const err = refusal({ params: 'ecomerce-white' })
    expect(err.code).toBe('validation_failed')
    expect(err.message).toBe('The parameter set failed validation.')
    expect(err.details).toEqual([{ field: 'params.preset', issue: 'no preset named "ecomerce-white"; did you mean "ecommerce-white"?' }])
  })

  it("names the set's layering problems beside the other fields' in one refusal", () => {
    const err = refusal({ mode: 'clipping', params: 'background=white;size=12x', output_format: 'bmp' })
    expect(err.message).toBe('The request failed validation.')
    expect(err.details?.map((d) => d.field)).toEqual(['output_format', 'params.size', 'params.background'])
  })

  it('says a malformed request as it is, without the set', () => {
    const err = refusal({ mode: 3, params: 'nosuch' })
    expect(err.code).toBe('malformed_request')
    expect(err.details).toEqual([{ field: 'mode', issue: 'expected a string, got a number' }])
  })

  it('agrees with the check of a set given as text', () => {
    const err = refusal({ mode: 'clipping', params: 'shadow=top' })
    expect(err.details).toEqual(paramsProblems(presets, 'clipping', 'shadow=top'))
  })
})
