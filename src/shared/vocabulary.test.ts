import { describe, expect, it } from 'vitest'
import { VARIATIONS } from './api'
import { outputNames } from './names'
import {
  countOf,
  countsLine,
  describeJob,
  describeSettings,
  MODE_LABEL,
  VARIATION_FILE_WORD,
  VARIATION_LABEL,
  variationFileWord,
  warningText
} from './vocabulary'

describe('the designer vocabulary', () => {
  it('names every variation on screen and in file names, each name once', () => {
    for (const v of VARIATIONS) {
      expect(VARIATION_LABEL[v]).toBeTruthy()
      expect(VARIATION_FILE_WORD[v]).toMatch(/^[a-z-]+$/)
    }
    expect(new Set(Object.values(VARIATION_LABEL)).size).toBe(VARIATIONS.length)
    expect(new Set(Object.values(VARIATION_FILE_WORD)).size).toBe(VARIATIONS.length)
    expect(VARIATION_LABEL).toMatchObject({ clipping: 'Cut-out', compose: 'On background', shadowTop: 'With shadow', mask: 'Mask' })
    expect(variationFileWord('something-else')).toBe('something-else')
  })

  it('default names of several files use the file words; the API names stay out of file names', () => {
    const naming = { relPath: 'day1/photo.jpg', template: null, mode: 'background', params: null, date: '2026-01-02', seq: 1 }
    const names = outputNames(naming, [
      { variation: 'compose', ext: 'png' },
      { variation: 'clipping', ext: 'png' },
      { variation: 'shadowTop', ext: 'png' },
      { variation: 'mask', ext: 'png' }
    ])
    expect(names).toEqual(['day1/photo.on-background.png', 'day1/photo.cut-out.png', 'day1/photo.with-shadow.png', 'day1/photo.mask.png'])
    expect(outputNames({ ...naming, template: '{variation}/{name}.{ext}' }, [{ variation: 'clipping', ext: 'webp' }])).toEqual([
      'day1/cut-out/photo.webp'
    ])
  })

  it('describes a job with the mode labels or the preset, never "preset/params"', () => {
    expect(describeJob({ mode: 'clipping', params: null, output_format: 'png' })).toBe(`${MODE_LABEL.clipping} · PNG`)
    expect(describeJob({ mode: 'background', params: null, output_format: 'jpg' })).toBe('On white background · JPG')
    expect(describeJob({ mode: 'params', params: 'shop-beige', output_format: 'png' }, () => 'Shop Beige')).toBe('Preset Shop Beige · PNG')
    expect(describeJob({ mode: 'params', params: 'shop-beige;size=800', output_format: 'png' })).toBe(
      'Preset shop-beige with changes · PNG'
    )
    expect(describeJob({ mode: 'params', params: 'background=white', output_format: 'webp' })).toBe('Custom settings · WEBP')
  })

  it('says counts with the right plural, and leaves zero counts out', () => {
    expect(countOf(1, 'photo')).toBe('1 photo')
    expect(countOf(2, 'photo')).toBe('2 photos')
    expect(countOf(0, 'file')).toBe('0 files')
    expect(
      countsLine([
        [1, (n) => `${n} done`],
        [0, (n) => `${n} failed`],
        [2, (n) => `${n} not started`]
      ])
    ).toBe('1 done, 2 not started')
    expect(countsLine([[0, (n) => `${n} done`]])).toBe('nothing')
  })

  it("says a run's settings without code values", () => {
    expect(describeSettings({ mode: 'clipping', output_format: 'png', all_variations: false })).toBe(
      'Cut-out (transparent) · PNG; one file per photo; default names'
    )
    expect(
      describeSettings({
        mode: 'params',
        format: 'jpg',
        params: 'ecommerce-white',
        all_variations: true,
        template: '{preset}/{name}.{ext}'
      })
    ).toBe('Preset ecommerce-white · JPG; every variation; names {preset}/{name}.{ext}')
    expect(describeSettings({ mode: 'params', format: 'png', params: 'background=beige', template: null })).toBe(
      'Custom settings · PNG (background=beige); one file per photo; default names'
    )
    expect(describeSettings({ mode: 'clipping', format: 'png', params: null, template: null })).not.toMatch(/=|null/)
  })

  it("says a warning with the file's label and the engine's flattening sentence in plain words", () => {
    expect(warningText('shadowTop', 'the shadowTop variation was flattened onto white: jpg has no transparency')).toBe(
      'With shadow: flattened onto white (JPG has no transparency)'
    )
    expect(warningText('clipping', 'device: the cuda execution provider could not be used')).toBe(
      'Cut-out: device: the cuda execution provider could not be used'
    )
  })
})
