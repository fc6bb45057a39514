import { describe, expect, it } from 'vitest'
import { VARIATIONS } from './api'
import { parseParams } from './params'
import { formatParams } from './params-format'
import { MAX_PARAMS_LENGTH, PARAM_KEYS, type ParamSet, type ParamValues } from './params-keys'
import { resolveParams, type PresetLookup } from './params-layers'
import { BACKGROUND_DEFAULTS, CLIPPING_DEFAULTS } from './params-types'
import { BUILTIN_PRESETS, builtinPreset } from './presets'
import { validateUpload } from './upload'

const builtins: PresetLookup = (name) => builtinPreset(name)?.values ?? null

function values(input: unknown): ParamValues {
  const r = parseParams(input)
  if (!r.ok) throw new Error(`did not parse: ${JSON.stringify(r.details)}`)
  return r.value.values
}

function fields(input: unknown): string[] {
  const r = parseParams(input)
  if (r.ok) throw new Error(`parsed: ${JSON.stringify(r.value)}`)
  return r.details.map((d) => d.field)
}

function set(input: unknown): ParamSet {
  const r = parseParams(input)
  if (!r.ok) throw new Error(`did not parse: ${JSON.stringify(r.details)}`)
  return r.value
}

describe('parseParams: every key, good values', () => {
  it.each([
    ['background=transparent', { background: { kind: 'transparent' } }],
    ['background=#fff', { background: { kind: 'color', rgba: [255, 255, 255, 255] } }],
    ['background=#F008', { background: { kind: 'color', rgba: [255, 0, 0, 0x88] } }],
    ['background=#1a2B3c', { background: { kind: 'color', rgba: [0x1a, 0x2b, 0x3c, 255] } }],
    ['background=#1a2b3c80', { background: { kind: 'color', rgba: [0x1a, 0x2b, 0x3c, 0x80] } }],
    ['background=blur', { background: { kind: 'blur', radius: null } }],
    ['background=blur:12', { background: { kind: 'blur', radius: 12 } }],
    ['background=blur:250', { background: { kind: 'blur', radius: 250 } }],
    ['shadow=none', { shadow: 'none' }],
    ['shadow=top', { shadow: 'top' }],
    ['crop=none', { crop: 'none' }],
    ['crop=subject', { crop: 'subject' }],
    ['size=original', { size: { kind: 'original' } }],
    ['size=1600x1200', { size: { kind: 'box', width: 1600, height: 1200 } }],
    ['size=10000X1', { size: { kind: 'box', width: 10000, height: 1 } }],
    ['size=2048', { size: { kind: 'long', max: 2048 } }],
    ['margin=5%', { margin: { unit: '%', value: 5 } }],
    ['margin=12.5%', { margin: { unit: '%', value: 12.5 } }],
    ['margin=49.99%', { margin: { unit: '%', value: 49.99 } }],
    ['margin=0', { margin: { unit: 'px', value: 0 } }],
    ['margin=40px', { margin: { unit: 'px', value: 40 } }],
    ['position=center', { position: 'center' }],
    ['position=bottom', { position: 'bottom' }],
    ['variations=compose', { variations: ['compose'] }],
    ['variations=mask, clipping ,shadowTop', { variations: ['mask', 'clipping', 'shadowTop'] }],
    ['variations=clipping,background,compose,shadowTop,mask', { variations: [...VARIATIONS] }],
    ['primary=shadowTop', { primary: 'shadowTop' }],
    ['quality=1', { quality: 1 }],
    ['quality=100', { quality: 100 }],
    ['refine=none', { refine: 'none' }],
    ['refine=edges', { refine: 'edges' }],
    ['refine=detail', { refine: 'detail' }],
    ['alpha=auto', { alpha: 'auto' }],
    ['alpha=keep', { alpha: 'keep' }]
  ] as const)('%s', (text, expected) => {
    expect(values(text)).toEqual(expected)
  })
})

describe('parseParams: every bad value is refused naming its key', () => {
  it.each([
    [
      'background',
      [
        'pinkish',
        'whte',
        'constructor',
        '#ff',
        '#12345',
        '#1234567',
        '#gggggg',
        'blur:0',
        'blur:251',
        'blur:2.5',
        'blur:',
        'Transparent',
        ''
      ]
    ],
    ['shadow', ['bottom', 'TOP', '']],
    ['crop', ['box', '']],
    ['size', ['0x100', '100x0', '10001x10', '10x10001', '0', '10001', 'big', '100x', '-5', '1.5x2', '']],
    ['margin', ['50%', '75%', '-1%', '5', '5pt', '5001px', '1.5px', 'px', '']],
    ['position', ['middle', 'Top', 'bottom,left', 'left,right', 'left,center,top', '']],
    ['upscale', ['yes', 'Never', '']],
    ['variations', ['', 'compose,compose', 'compose,cutout', ',', 'Compose']],
    ['primary', ['cutout', '', 'Compose']],
    ['quality', ['0', '101', '50.5', 'high', '-1', '']],
    ['refine', ['edge', 'details', '']],
    ['alpha', ['preserve', '']]
  ] as const)('%s', (key, bad) => {
    for (const value of bad) {
      const r = parseParams(`${key}=${value}`)
      expect(r.ok, `${key}=${value}`).toBe(false)
      if (!r.ok) {
        expect(r.details).toHaveLength(1)
        expect(r.details[0]!.field, `${key}=${value}`).toBe(`params.${key}`)
        expect(r.details[0]!.issue.length).toBeGreaterThan(5)
        // Every refusal says what was expected: zod's bare default never reaches a user.
        expect(r.details[0]!.issue, `${key}=${value}`).not.toContain('Invalid input')
      }
    }
  })

  it('reports every offending key of one set, each once', () => {
    const r = parseParams('shadow=left;size=0x0;quality=500;margin=60%;colour=red;background=pinkish')
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.details.map((d) => d.field).sort()).toEqual(
      ['params.background', 'params.colour', 'params.margin', 'params.quality', 'params.shadow', 'params.size'].sort()
    )
    expect(r.details.find((d) => d.field === 'params.colour')!.issue).toMatch(/unknown key/)
    expect(r.details.find((d) => d.field === 'params.margin')!.issue).toMatch(/under 50%/)
  })

  it('accepts colour names for background, as their hex value, and names the choices when one is refused', () => {
    expect(values('background=white')).toEqual({ background: { kind: 'color', rgba: [255, 255, 255, 255] } })
    expect(values('background=Black')).toEqual({ background: { kind: 'color', rgba: [0, 0, 0, 255] } })
    expect(values('background=light-grey')).toEqual({ background: { kind: 'color', rgba: [0xd3, 0xd3, 0xd3, 255] } })
    const r = parseParams('background=whte')
    expect(!r.ok && r.details[0]!.issue).toMatch(/^expected transparent, a colour name \(white, black, grey, beige…\), #RGB.*, got "whte"$/)
    const size = parseParams('size=big')
    expect(!size.ok && size.details[0]!.issue).toMatch(/^expected original, <W>x<H> or <max>.*, got "big"$/)
  })

  it('messages say what was expected and what came', () => {
    const r = parseParams('position=middle')
    expect(!r.ok && r.details[0]).toEqual({
      field: 'params.position',
      issue: 'expected center, top, bottom, left, right, or <x>,<y> (x: left, center, right; y: top, center, bottom), got "middle"'
    })
    const v = parseParams('variations=compose,compose,clipping,clipping')
    expect(!v.ok && v.details[0]!.issue).toBe('lists compose, clipping more than once')
  })

  it('refuses a key given twice, a bare word after the first part, and a pair without key', () => {
    expect(fields('shadow=top;shadow=none')).toEqual(['params.shadow'])
    expect(fields('crop=subject;ecommerce-white')).toEqual(['params'])
    expect(fields('=5')).toEqual(['params'])
  })

  it('refuses a primary that the same set does not list among its variations', () => {
    expect(fields('variations=clipping,compose;primary=mask')).toEqual(['params.primary'])
  })

  it('refuses a badly formed preset name', () => {
    expect(fields('Ecommerce')).toEqual(['params.preset'])
    expect(fields('-lead;size=100')).toEqual(['params.preset'])
    expect(fields('a'.repeat(65))).toEqual(['params.preset'])
    expect(parseParams('a'.repeat(64)).ok).toBe(true)
  })
})

describe('parseParams: forms', () => {
  it('inline pairs joined by ; or &, led by a preset name, with spaces and a trailing separator forgiven', () => {
    expect(set('ecommerce-white;size=1600x1600;margin=6%')).toEqual({
      preset: 'ecommerce-white',
      values: { size: { kind: 'box', width: 1600, height: 1600 }, margin: { unit: '%', value: 6 } }
    })
    expect(set(' shadow = none & quality = 80 ; ')).toEqual({ preset: null, values: { shadow: 'none', quality: 80 } })
  })

  it('a preset name alone', () => {
    expect(set('my_preset-2')).toEqual({ preset: 'my_preset-2', values: {} })
  })

  it('a JSON object with typed values, also as a string (as multipart sends it)', () => {
    const obj = {
      preset: 'social-blur',
      size: 1600,
      quality: 85,
      variations: ['compose', 'mask'],
      margin: 10,
      background: '#000',
      refine: null
    }
    const expected: ParamSet = {
      preset: 'social-blur',
      values: {
        size: { kind: 'long', max: 1600 },
        quality: 85,
        variations: ['compose', 'mask'],
        margin: { unit: 'px', value: 10 },
        background: { kind: 'color', rgba: [0, 0, 0, 255] }
      }
    }
    expect(set(obj)).toEqual(expected)
    expect(set(JSON.stringify(obj))).toEqual(expected)
    // String values are accepted in JSON too.
    expect(values({ size: '2000x1000', quality: '70' })).toEqual({ size: { kind: 'box', width: 2000, height: 1000 }, quality: 70 })
  })

  it('JSON: wrong types and unknown keys are named', () => {
    expect(fields({ quality: 99.5, size: true, shadow: 1, colour: 'red', variations: [1] }).sort()).toEqual(
      ['params.colour', 'params.quality', 'params.shadow', 'params.size', 'params.variations'].sort()
    )
    expect(fields({ preset: 7 })).toEqual(['params.preset'])
    expect(fields('{"size": 100')).toEqual(['params'])
    expect(fields('{}x')).toEqual(['params'])
    expect(fields([1, 2])).toEqual(['params'])
    expect(fields(42)).toEqual(['params'])
  })

  it('strings of 2,048 characters parse; longer ones are refused', () => {
    const pad = ';'.repeat(MAX_PARAMS_LENGTH - 'shadow=none'.length)
    expect(parseParams(`shadow=none${pad}`).ok).toBe(true)
    const r = parseParams(`shadow=none${pad};`)
    expect(r.ok).toBe(false)
    expect(!r.ok && r.details).toEqual([
      { field: 'params', issue: `longer than ${MAX_PARAMS_LENGTH} characters (${MAX_PARAMS_LENGTH + 1})` }
    ])
    expect(fields('   ')).toEqual(['params'])
  })

  it('formatParams writes what parseParams reads back', () => {
    const text =
      'background=#102030;shadow=none;crop=subject;size=1200x800;margin=7.5%;position=bottom;upscale=never;variations=compose,mask;primary=mask;quality=70;refine=none;look=always;alpha=keep;model=birefnet-lite;metadata=keep-gps;format=webp'
    const v = values(text)
    expect(formatParams(v)).toBe(
      'background=#102030;shadow=none;crop=subject;size=1200x800;margin=7.5%;position=bottom;upscale=never;variations=compose,mask;primary=mask;quality=70;refine=none;look=always;alpha=keep;model=birefnet-lite;metadata=keep-gps;format=webp'
    )
    expect(values(formatParams(v))).toEqual(v)
    expect(formatParams({ background: { kind: 'color', rgba: [1, 2, 3, 4] }, size: { kind: 'long', max: 900 } }, 'base')).toBe(
      'base;background=#01020304;size=900'
    )
    expect(PARAM_KEYS).toHaveLength(16)
    expect(values('format=jpg;upscale=2x,1000')).toEqual({ format: 'jpg', upscale: '2x,1000' })
    expect(values('upscale=1.5x')).toEqual({ upscale: '1.5x' })
    expect(fields('upscale=0.5x')).toEqual(['params.upscale'])
    expect(fields('upscale=2x,0')).toEqual(['params.upscale'])
    expect(fields('format=bmp')).toEqual(['params.format'])
    expect(fields('look=allways')).toEqual(['params.look'])
    expect(values('look=off')).toEqual({ look: 'off' })
    expect(fields('metadata=all')).toEqual(['params.metadata'])
    expect(values('metadata=strip')).toEqual({ metadata: 'strip' })
    expect(fields('model=Big Model')).toEqual(['params.model'])
    expect(fields('model=')).toEqual(['params.model'])
  })
})

describe('resolveParams', () => {
  it('mode defaults: clipping, background, params', () => {
    expect(resolveParams('clipping', null, builtins)).toEqual({ ok: true, value: CLIPPING_DEFAULTS })
    for (const mode of ['background', 'params'] as const) {
      const r = resolveParams(mode, null, builtins)
      expect(r).toEqual({ ok: true, value: BACKGROUND_DEFAULTS })
      expect(BACKGROUND_DEFAULTS).toMatchObject({
        background: { kind: 'color', rgba: [255, 255, 255, 255] },
        variations: ['clipping', 'background', 'compose', 'shadowTop'],
        primary: 'compose'
      })
    }
  })

  it('layers defaults, preset and own keys; the own keys win', () => {
    const r = resolveParams('params', set('ecommerce-white;size=1600x1600;margin=6%'), builtins)
    expect(r.ok && r.value).toEqual({
      ...BACKGROUND_DEFAULTS,
      background: { kind: 'color', rgba: [255, 255, 255, 255] },
      shadow: 'top',
      crop: 'subject',
      size: { kind: 'box', width: 1600, height: 1600 },
      margin: { unit: '%', value: 6 },
      position: 'bottom',
      primary: 'shadowTop',
      preset: 'ecommerce-white'
    })
  })

  it('shadow=none leaves shadowTop out of the default variations, not out of named ones', () => {
    const none = resolveParams('background', set('shadow=none'), builtins)
    expect(none.ok && none.value.variations).toEqual(['clipping', 'background', 'compose'])
    const named = resolveParams('background', set('shadow=none;variations=compose,shadowTop'), builtins)
    expect(named.ok && named.value.variations).toEqual(['compose', 'shadowTop'])
  })

  it('primary: own must be among the variations; else preset, mode default, first', () => {
    const bad = resolveParams('background', set('primary=mask'), builtins)
    expect(!bad.ok && bad.details.map((d) => d.field)).toEqual(['params.primary'])
    const own = resolveParams('params', set('variations=mask,clipping'), builtins)
    expect(own.ok && own.value.primary).toBe('mask') // no compose: the first one
    const withCompose = resolveParams('params', set('variations=mask,compose'), builtins)
    expect(withCompose.ok && withCompose.value.primary).toBe('compose')
    // Framing keys apply to mode clipping: only the clipping is made, cropped to the subject.
    const clipping = resolveParams('clipping', set('crop=subject;size=2000x2000'), builtins)
    expect(clipping.ok && [clipping.value.variations, clipping.value.primary, clipping.value.crop]).toEqual([
      ['clipping'],
      'clipping',
      'subject'
    ])
  })

  it('refuses an unknown preset with 422 details on params.preset', () => {
    const r = resolveParams('params', set('no-such-preset;shadow=none'), builtins)
    expect(r).toEqual({ ok: false, details: [{ field: 'params.preset', issue: 'no preset named "no-such-preset"' }] })
  })

  it('refuses a pixel margin that leaves no room in the canvas', () => {
    expect(resolveParams('params', set('size=100x300;margin=50px'), builtins).ok).toBe(false)
    expect(resolveParams('params', set('size=100x300;margin=49px'), builtins).ok).toBe(true)
    const long = resolveParams('params', set('size=80;margin=40px'), builtins)
    expect(!long.ok && long.details.map((d) => d.field)).toEqual(['params.margin'])
    expect(resolveParams('params', set('margin=4000px'), builtins).ok).toBe(true) // size original: the canvas grows
  })
})

describe('built-in presets', () => {
  it('are the nine of docs/params.md, parse, and resolve in every mode', () => {
    expect(BUILTIN_PRESETS.map((p) => p.name)).toEqual([
      'ecommerce-white',
      'transparent-square',
      'marketplace-1600',
      'social-blur',
      'amazon',
      'ebay',
      'etsy',
      'shopify',
      'google'
    ])
    for (const p of BUILTIN_PRESETS) {
      expect(p.builtin).toBe(true)
      expect(values(p.params)).toEqual(p.values)
      for (const mode of ['background', 'params'] as const) expect(resolveParams(mode, set(p.name), builtins).ok).toBe(true)
    }
    // Only transparent-square makes nothing mode=clipping cannot: the others are refused there, never dropped.
    const inClipping = BUILTIN_PRESETS.filter((p) => resolveParams('clipping', set(p.name), builtins).ok).map((p) => p.name)
    expect(inClipping).toEqual(['transparent-square'])
  })

  it('ecommerce-white is white, shadow top, crop subject, 2000x2000, 5% margin, bottom-centred', () => {
    expect(builtinPreset('ecommerce-white')!.values).toMatchObject({
      background: { kind: 'color', rgba: [255, 255, 255, 255] },
      shadow: 'top',
      crop: 'subject',
      size: { kind: 'box', width: 2000, height: 2000 },
      margin: { unit: '%', value: 5 },
      position: 'bottom'
    })
  })
})

describe('validateUpload checks the grammar with the other fields', () => {
  it('reports bad params keys together with a bad enum', () => {
    const r = validateUpload(
      { file_url: 'https://example.com/a.png', mode: 'params', output_format: 'bmp', params: 'size=0;shadow=left' },
      false
    )
    expect(r.ok).toBe(false)
    expect(!r.ok && [r.code, r.details.map((d) => d.field).sort()]).toEqual([
      'validation_failed',
      ['output_format', 'params.shadow', 'params.size']
    ])
  })

  it('accepts a well-formed set in any mode (presets are looked up later)', () => {
    for (const mode of ['clipping', 'background', 'params']) {
      expect(validateUpload({ file_url: 'https://example.com/a.png', mode, params: 'whatever-preset;quality=80' }, false).ok).toBe(true)
    }
  })
})
