import { join, resolve, sep } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isInside, isStrictlyInside, resolveInside } from './paths'
import { outputNames, presetToken, renderTemplate, sanitizeSegment, sanitizeToken, templateProblem } from '../../shared/names'

const OUT = resolve('/tmp/clipdesk-out-test')
const tokens = (over: Partial<Record<string, string>> = {}) => ({
  name: 'photo',
  ext: 'png',
  variation: 'clipping',
  date: '2026-01-02',
  preset: 'clipping',
  n: '7',
  ...over
})

describe('templateProblem', () => {
  it('accepts the default and sub-folder templates', () => {
    expect(templateProblem('{name}.{variation}.{ext}')).toBeNull()
    expect(templateProblem('{date}/{preset}/{name}-{variation}.{ext}')).toBeNull()
  })
  it.each([
    ['', 'empty'],
    ['{nom}.{ext}', 'unknown token {nom}'],
    ['{name.{ext}', 'unmatched'],
    ['../{name}.{ext}', '. or ..'],
    ['/abs/{name}.{ext}', 'relative'],
    ['a\\{name}.{ext}', 'use /'],
    ['a//{name}.{ext}', 'empty folder'],
    ['{variation}.{ext}', 'must contain {name}']
  ])('refuses %j (%s)', (template, words) => {
    expect(templateProblem(template)).toContain(words)
  })
})

describe('rendering', () => {
  it('numbers inputs with {n}, zero-padded with {n:3}', () => {
    expect(templateProblem('sku-{n}-{name}.{ext}')).toBeNull()
    expect(templateProblem('{n:3}_{name}.{ext}')).toBeNull()
    expect(renderTemplate('sku-{n}-{name}.{ext}', tokens())).toBe('sku-7-photo.png')
    expect(renderTemplate('{n:3}_{name}.{ext}', tokens())).toBe('007_photo.png')
    expect(renderTemplate('{n:2}_{name}.{ext}', tokens({ n: '123' }))).toBe('123_photo.png')
  })
  it.each(['{n:0}_{name}', '{n:10}_{name}', '{name:3}', '{n:3:1}_{name}', '{n:}_{name}'])(
    'refuses the malformed number token %j',
    (template) => {
      expect(templateProblem(template)).toContain('unknown token')
    }
  )
  it('renders the default template', () => {
    expect(renderTemplate('{name}.{variation}.{ext}', tokens())).toBe('photo.clipping.png')
  })
  it('never lets a token add a folder or climb out', () => {
    expect(renderTemplate('{name}.{ext}', tokens({ name: '../../etc/passwd' }))).toBe('_.._etc_passwd.png')
    expect(renderTemplate('{name}.{ext}', tokens({ name: '..' }))).toBe('_.png')
    expect(renderTemplate('{preset}/{name}.{ext}', tokens({ preset: 'a/b\\c' }))).toBe('a_b_c/photo.png')
  })
  it('keeps a name valid on Windows too', () => {
    expect(sanitizeSegment('CON.png')).toBe('_CON.png')
    expect(sanitizeToken('a:b*c?"<>|')).toBe('a_b_c_____')
    expect(sanitizeToken(' . ')).toBe('_')
    expect(Buffer.byteLength(sanitizeSegment(`${'x'.repeat(400)}.png`))).toBeLessThanOrEqual(200)
    expect(sanitizeSegment(`${'x'.repeat(400)}.png`).endsWith('.png')).toBe(true)
  })
  it('reads the preset from params, else the mode', () => {
    expect(presetToken('params', 'ecommerce-white;size=1600x1600')).toBe('ecommerce-white')
    expect(presetToken('params', 'size=1600x1600')).toBe('custom')
    expect(presetToken('clipping', null)).toBe('cut-out')
  })
  it('inside checks', () => {
    expect(isInside(OUT, join(OUT, 'a'))).toBe(true)
    expect(isInside(OUT, OUT)).toBe(true)
    expect(isStrictlyInside(OUT, OUT)).toBe(false)
    expect(isInside(OUT, `${OUT}-sibling`)).toBe(false)
    expect(isInside(OUT, join(OUT, '..', 'x'))).toBe(false)
    expect(isStrictlyInside(OUT, join(OUT, '..foo'))).toBe(true)
  })
})

describe('outputs stay inside the output folder (property)', () => {
  const anyText = fc.string({
    unit: fc.constantFrom('a', '.', '/', '\\', '..', ' ', ':', '\0', 'é', 'CON', '~', '-', '{', '}'),
    maxLength: 30
  })
  const relDir = fc
    .array(fc.string({ unit: fc.constantFrom('a', 'b', ' ', '.', 'é'), minLength: 1, maxLength: 6 }), { maxLength: 3 })
    .map((parts) => parts.filter((p) => p !== '.' && p !== '..').join('/'))
  const template = fc.constantFrom(
    '{name}.{variation}.{ext}',
    '{date}/{name}.{ext}',
    '{preset}/{variation}/{name}-{date}.{ext}',
    'out-{name}'
  )

  it('for any token values, folder and template', () => {
    fc.assert(
      fc.property(template, relDir, anyText, anyText, anyText, anyText, (t, dir, name, ext, variation, preset) => {
        // A file name never holds '/': the input's own folders come from `dir`.
        const file = `${name.replaceAll('/', '-')}.jpg`
        const [rendered] = outputNames(
          { relPath: dir === '' ? file : `${dir}/${file}`, template: t, mode: 'params', params: preset, date: '2026-01-02', seq: 3 },
          [{ variation, ext }]
        )
        const target = resolveInside(OUT, rendered!)
        expect(isStrictlyInside(OUT, target)).toBe(true)
        const rel = target.slice(OUT.length + 1).split(sep)
        for (const seg of rel) {
          expect(seg).not.toBe('..')
          expect(seg).not.toBe('.')
          expect(seg).not.toBe('')
        }
        // Only the template's own '/' make folders.
        expect(rel.length).toBe((dir === '' ? 0 : dir.split('/').length) + t.split('/').length)
      }),
      { numRuns: 2000 }
    )
  })
})
